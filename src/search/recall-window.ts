/**
 * Time-window recall: a prompt about a time ("what did I do yesterday?", "what happened last week?",
 * "anything from October 9th?") is answered from the memories dated in the window it names, as of
 * the recall's reference day — not from what search ranks first, which knows nothing of dates.
 *
 * - The window's memories: daily logs of its days (by the file's date), then transcript chunks whose
 *   first message falls in it (by local day). Curated files have no date and are never in a window.
 * - With topic words as well ("what did we decide about pricing last week?"): the window's memories
 *   that hold one of them (FTS5, stemmed), best first (search's ranking, then BM25). When none does,
 *   there is no window answer and recall ranks as usual (the date still weighs in: dateWeight).
 * - Topic words are the prompt's words other than its date phrase, stop words and the frame of a
 *   time question (TIME_FRAME: "did", "happened", "work", "decide"), and the index must hold them.
 * - Order without a topic: when the window's memories fit the budget all are shown; when they do not, a spread: each
 *   day's first memory, then each day's second, and so on (daily logs before transcripts; the days of
 *   a round in halving order), so the whole window is represented. The block shows them in time
 *   order (oldest first).
 */
import type { IndexStore, ChunkRow } from "../index/repos/store.js";
import { applyConsolidation, type AnnotatedHit } from "../consolidate/annotate.js";
import { collapseConflictCopies } from "./recall-copies.js";
import type { DateWindow } from "./dates.js";
import { localDay } from "../util/local-day.js";
import { stem } from "./excerpt.js";
import type { PromptProfile, PromptWord } from "./relevance.js";

/** Chunk ids read per window and kind (integers from the files_date index): a year of logs fits. */
const MAX_IDS = 5000;
/** Memories read in full for packing: more than a 2,000-token budget can hold. */
const MAX_MEMORIES = 160;

export interface WindowAnswer {
  /** The memories to pack, in spread order (see above). */
  hits: AnnotatedHit[];
  /** The topic words the window's memories were filtered by (empty: the whole window, in spread order; else best first). */
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

/**
 * The frame of a question about a time: what one asks of any day ("what did I do", "what happened",
 * "what did we decide", "anything I wrote down", "catch me up on"). Words outside it name a topic.
 */
const TIME_FRAME = new Set(
  (
    "do did does done doing happen happened happening go went going gone get got getting work worked working " +
    "write wrote written down note noted notes log logged decide decided discuss discussed talk talked say said " +
    "anything everything something stuff things thing up on going plate recap summary summarize summarise " +
    "remind tell catch show list give day days week weeks month months year years time"
  )
    .split(" ")
    .map(stem),
);

/**
 * A time prompt's profile without the words of its frame ("work" in "what did I work on last
 * Friday?"): when its window holds nothing, a memory elsewhere holding only them ("Walked 5 km after
 * work") is about nothing the prompt asks.
 */
export function withoutTimeFrame(profile: PromptProfile): PromptProfile {
  const words = profile.words.filter((w) => !TIME_FRAME.has(w.stem));
  if (words.length === profile.words.length) return profile;
  return { ...profile, words, weight: words.reduce((s, w) => s + w.weight, 0) };
}

/** The prompt words a window's memories are filtered by: known to the index, not the frame of a time question. */
export function windowTopic(words: readonly PromptWord[]): PromptWord[] {
  return words.filter((w) => w.df > 0 && !TIME_FRAME.has(w.stem));
}

/**
 * The memories answering a time prompt from its windows, or null when there is no window answer
 * (no window, nothing dated in it, or topic words no memory of the window holds).
 */
export function windowMemories(
  store: Pick<IndexStore, "chunks" | "text">,
  windows: readonly DateWindow[],
  words: readonly PromptWord[],
  /** The ids a narrower scope may see, of those given (absent: all; visibility/visibility.ts). */
  allowed?: (ids: number[]) => ReadonlySet<number>,
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
  if (allowed && seen.size > 0) {
    const ok = allowed([...seen]);
    for (const list of [daily, transcript]) list.splice(0, list.length, ...list.filter((id) => ok.has(id)));
    for (const id of [...seen]) if (!ok.has(id)) seen.delete(id);
  }
  if (seen.size === 0) return null;
  const topic = windowTopic(words);
  let keep: (id: number) => boolean = () => true;
  let ranked: number[] | undefined;
  if (topic.length > 0) {
    const holding = new Set(matching(store, topic, seen));
    if (holding.size === 0) return null;
    keep = (id) => holding.has(id);
    // With a topic the window is a filter, and relevance orders: BM25 of all the prompt's known words
    // (frame words too: "beach" in "how often did Mel go to the beach in 2023?"), daily logs and
    // transcripts alike.
    const known = words.filter((w) => w.df > 0);
    const order = matching(store, known, holding);
    const inOrder = new Set(order);
    ranked = [...order, ...[...holding].filter((id) => !inOrder.has(id))];
  }
  const ids = ranked ?? [...daily.filter(keep), ...transcript.filter(keep)];
  const picked = ranked ? ids.slice(0, MAX_MEMORIES) : spread(ids, store, MAX_MEMORIES);
  const rows = store.chunks.chunksByIds(picked);
  const hits: AnnotatedHit[] = [];
  for (const id of picked) {
    const row = rows.get(id);
    if (row) hits.push(hitOf(row));
  }
  return { hits, topic: topic.map((w) => w.word), total: ids.length };
}

/** The chunks among `among` holding one of the words (FTS5, stemmed), best BM25 first. */
function matching(store: Pick<IndexStore, "text">, words: readonly PromptWord[], among: ReadonlySet<number>): number[] {
  if (words.length === 0) return [];
  const match = words.map((w) => `"${w.word.replace(/"/g, '""')}"`).join(" OR ");
  return store.text
    .keywordSearch(match, MAX_IDS, "rank")
    .map((h) => h.id)
    .filter((id) => among.has(id));
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

/** A window's memories as search's hits are: conflict copies collapsed, consolidation applied, search's score (and, with a topic, order) kept. */
export function windowHits(
  store: IndexStore,
  hits: readonly AnnotatedHit[],
  ranked: readonly AnnotatedHit[],
  topical: boolean,
  consolidation: Parameters<typeof applyConsolidation>[2],
): AnnotatedHit[] {
  const key = (h: AnnotatedHit) => `${h.path}:${h.startLine}`;
  const rank = new Map(ranked.map((h, i) => [key(h), { i, score: h.score }]));
  const scored = hits.map((h, i) => ({ hit: { ...h, score: rank.get(key(h))?.score ?? 0 }, i }));
  // Those search ranked come first, in its order; the others keep the window's order.
  if (topical)
    scored.sort((a, b) => (rank.get(key(a.hit))?.i ?? Infinity) - (rank.get(key(b.hit))?.i ?? Infinity) || a.i - b.i);
  return applyConsolidation(store, collapseConflictCopies(scored.map((s) => s.hit)), consolidation);
}

/** Oldest first: by day, a day's log before its transcripts, then by file and line. */
export function timeOrder(a: AnnotatedHit, b: AnnotatedHit): number {
  return (
    (a.date ?? "").localeCompare(b.date ?? "") ||
    Number(b.source === "daily") - Number(a.source === "daily") ||
    a.path.localeCompare(b.path) ||
    a.startLine - b.startLine
  );
}
