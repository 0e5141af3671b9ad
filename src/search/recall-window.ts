/**
 * Time-window recall: a prompt about a time ("what did I do yesterday?", "what happened last week?",
 * "anything from October 9th?") is answered from the memories dated in the window it names, as of
 * the recall's reference day — not from what search ranks first, which knows nothing of dates.
 *
 * - The window's memories: daily logs of its days (by the file's date), then transcript chunks whose
 *   first message falls in it (by local day). Curated files have no date and are never in a window.
 * - With topic words as well ("what did we decide about pricing last week?"): the window's memories
 *   that hold one of them (FTS5, stemmed). When none does, there is no window answer and recall
 *   ranks as usual (the date still weighs in: recall-select's dateWeight).
 * - Topic words are the prompt's words other than its date phrase, stop words and frame words
 *   (frame-words.ts: "did", "happened", "work", "decide"), and the index must hold them.
 * - Order: when the window's memories fit the budget all are shown; when they do not, a spread: each
 *   day's first memory, then each day's second, and so on (daily logs before transcripts; the days of
 *   a round in halving order), so the whole window is represented. The block shows them in time
 *   order (oldest first).
 */
import type { IndexStore, ChunkRow } from "../index/store.js";
import type { AnnotatedHit } from "../consolidate/annotate.js";
import type { DateWindow } from "./dates.js";
import { localDay } from "../util/local-day.js";
import { isFrameWord } from "./frame-words.js";
import type { PromptWord } from "./relevance.js";

/** Chunk ids read per window and kind (integers from the files_date index): a year of logs fits. */
const MAX_IDS = 5000;
/** Memories read in full for packing: more than a 2,000-token budget can hold. */
const MAX_MEMORIES = 160;

export interface WindowAnswer {
  /** The memories to pack, in spread order (see above). */
  hits: AnnotatedHit[];
  /** The topic words the window's memories were filtered by (empty: the whole window). */
  topic: string[];
  /** Memories dated in the window (after the topic filter), before the spread's cut. */
  total: number;
}

/** Local midnight of a YYYY-MM-DD day (transcript times are placed in local days, as search dates them). */
function localMidnight(date: string): number {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  return new Date(y, m - 1, d).getTime();
}

function nextDay(date: string): string {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

/** The prompt words a window's memories are filtered by: known to the index, not frame words. */
export function windowTopic(words: readonly PromptWord[]): PromptWord[] {
  return words.filter((w) => w.df > 0 && !isFrameWord(w.word));
}

/**
 * The memories answering a time prompt from its windows, or null when there is no window answer
 * (no window, nothing dated in it, or topic words no memory of the window holds).
 */
export function windowMemories(
  store: Pick<IndexStore, "chunks" | "text">,
  windows: readonly DateWindow[],
  words: readonly PromptWord[],
): WindowAnswer | null {
  if (windows.length === 0) return null;
  const daily: number[] = [];
  const transcript: number[] = [];
  const seen = new Set<number>();
  for (const w of windows) {
    const ids = store.chunks.datedBetween(
      { from: w.from, to: w.to },
      { from: localMidnight(w.from), to: localMidnight(nextDay(w.to)) },
      MAX_IDS,
    );
    for (const [list, into] of [
      [ids.daily, daily],
      [ids.transcript, transcript],
    ] as const)
      for (const id of list) {
        if (seen.has(id)) continue;
        seen.add(id);
        into.push(id);
      }
  }
  if (seen.size === 0) return null;
  const topic = windowTopic(words);
  let keep: (id: number) => boolean = () => true;
  if (topic.length > 0) {
    const match = topic.map((w) => `"${w.word.replace(/"/g, '""')}"`).join(" OR ");
    const holding = new Set(
      store.text
        .keywordSearch(match, MAX_IDS, "rank")
        .map((h) => h.id)
        .filter((id) => seen.has(id)),
    );
    if (holding.size === 0) return null;
    keep = (id) => holding.has(id);
  }
  const ids = [...daily.filter(keep), ...transcript.filter(keep)];
  const picked = spread(ids, store, MAX_MEMORIES);
  const rows = store.chunks.chunksByIds(picked);
  const hits: AnnotatedHit[] = [];
  for (const id of picked) {
    const row = rows.get(id);
    if (row) hits.push(hitOf(row));
  }
  return { hits, topic: topic.map((w) => w.word), total: ids.length };
}

/**
 * The first `n` of `ids` (daily logs first, then transcripts, each oldest first) in spread order:
 * each day's first memory, then each day's second, …, daily logs before transcripts; within one
 * round the days in an order that halves the window's gaps (first, last, middle, quarters, …), so
 * a budget that ends anywhere has covered the window evenly.
 */
function spread(ids: readonly number[], store: Pick<IndexStore, "chunks">, n: number): number[] {
  const meta = store.chunks.meta.lookup(ids);
  const dayOf = (id: number): string => {
    const m = meta.get(id);
    return m?.class === "daily" && m.date ? m.date : m?.ts ? localDay(m.ts) : "";
  };
  const isDaily = (id: number) => meta.get(id)?.class === "daily";
  const round = new Map<number, number>();
  const perDay = new Map<string, number>();
  const days = new Set<string>();
  for (const id of ids) {
    const key = `${isDaily(id) ? "d" : "t"}:${dayOf(id)}`;
    const k = perDay.get(key) ?? 0;
    perDay.set(key, k + 1);
    round.set(id, k);
    days.add(dayOf(id));
  }
  const sorted = [...days].sort();
  const place = new Map(halvingOrder(sorted.length).map((i, k) => [sorted[i]!, k]));
  const order = ids.map((id, i) => ({ id, i }));
  order.sort(
    (a, b) =>
      Number(isDaily(b.id)) - Number(isDaily(a.id)) ||
      round.get(a.id)! - round.get(b.id)! ||
      place.get(dayOf(a.id))! - place.get(dayOf(b.id))! ||
      a.i - b.i,
  );
  return order.slice(0, n).map((o) => o.id);
}

/** 0 … n−1 in an order where every prefix is spread evenly: the ends, then the middles of the gaps. */
export function halvingOrder(n: number): number[] {
  if (n <= 2) return [...Array(n).keys()];
  const out = [0, n - 1];
  let gaps: [number, number][] = [[0, n - 1]];
  while (gaps.length) {
    const next: [number, number][] = [];
    for (const [a, b] of gaps) {
      if (b - a < 2) continue;
      const mid = (a + b) >> 1;
      out.push(mid);
      next.push([a, mid], [mid, b]);
    }
    gaps = next;
  }
  return out;
}

function hitOf(row: ChunkRow): AnnotatedHit {
  const date = row.class === "daily" && row.date ? row.date : row.ts ? localDay(row.ts) : undefined;
  return {
    path: row.path,
    startLine: row.startLine,
    endLine: row.endLine,
    score: 0,
    vectorScore: 0,
    textScore: 0,
    snippet: row.text.slice(0, 200),
    source: row.class,
    text: row.text,
    hash: row.hash,
    ...(date ? { date } : {}),
  };
}
