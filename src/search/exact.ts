/**
 * The exactness guarantee of search: a word, id, code or name of the query that occurs verbatim in
 * only a few chunks ("INC-4821", "Lyon", "ECONNRESET") names those chunks, whatever the other legs
 * think. The vector leg cannot outvote it — a static model does not know "INC-4821" at all and ranks
 * by the question's frame ("what do we know about …") instead — and neither can the frame's words in
 * the keyword leg. Found with one bounded FTS5 phrase lookup per query token (no scoring), skipped
 * for a one-word token the postings in memory count as held by none or by more than a few chunks.
 */
import { splitCjk } from "../index/keyword/fts-text.js";
import { isFrameWord } from "./frame-words.js";
import { mayBeShortened, otherSpellings } from "./spellings.js";
import { STOP_WORDS, queryTokens } from "./keyword/index.js";

export interface ExactStore {
  keywordSearch(match: string, limit: number, order: "rank" | "recent"): { id: number }[];
  /** How many chunks hold a word, when known without a query (the postings in memory); null when not. */
  wordChunkCount?(word: string): number | null;
}

export interface ExactAnchor {
  /** The token as the query writes it (or a quoted phrase). */
  term: string;
  /** The chunks holding it verbatim (at most `few`). */
  ids: number[];
}

/** Tokens looked up per query: a prompt is short, and each lookup is one bounded FTS5 query. */
const MAX_TOKENS = 12;

/**
 * The query's tokens as written: quoted phrases whole, else whitespace-separated runs with their
 * edge punctuation trimmed (so "INC-4821?" is INC-4821 and "v0.9.12," is v0.9.12).
 */
export function writtenTokens(query: string): string[] {
  const out: string[] = [];
  const rest = query.replace(/["“”]([^"“”]{2,80})["“”]/gu, (_, phrase: string) => {
    out.push(phrase.trim());
    return " ";
  });
  for (const raw of rest.split(/\s+/)) {
    const t = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
    if (t) out.push(t);
  }
  return [...new Set(out)];
}

/** Whether a token says what the prompt is about: not only stop words, frame words or one letter. */
function isTopical(words: readonly string[]): boolean {
  if (words.length === 0) return false;
  if (words.length > 1) return words.some((w) => !STOP_WORDS.has(w));
  const w = words[0]!;
  return w.length > 1 && !STOP_WORDS.has(w) && !isFrameWord(w) && splitCjk(w).length === 1;
}

/**
 * The query's exact anchors: its topical tokens that the index holds verbatim (as an FTS5 phrase of
 * their words, in order) in 1..few chunks. A token found in more chunks is ordinary ranking's job.
 */
export function exactAnchors(store: ExactStore, query: string, few: number): ExactAnchor[] {
  if (few <= 0) return [];
  const anchors: ExactAnchor[] = [];
  const lookup = (words: readonly string[]): number[] | null => {
    // A word whose chunk count the postings in memory know is looked up only when it is an anchor.
    if (words.length === 1) {
      const n = store.wordChunkCount?.(words[0]!) ?? null;
      if (n !== null && (n === 0 || n > few)) return n === 0 ? [] : null;
    }
    return store.keywordSearch(phraseOf(words), few + 1, "recent").map((h) => h.id);
  };
  for (const term of writtenTokens(query).slice(0, MAX_TOKENS)) {
    const words = queryTokens(term);
    if (!isTopical(words)) continue;
    let ids = lookup(words);
    // A name the notes spell with letters FTS5 does not fold ("tromso" for Tromsø, or the reverse).
    if (ids?.length === 0 && words.length === 1)
      for (const other of otherSpellings(words[0]!)) {
        const found = lookup(queryTokens(other));
        if (found && found.length > 0) {
          ids = found;
          break;
        }
      }
    // Or a word typed short ("postgres" for PostgreSQL): the few chunks holding a word it begins.
    if (ids?.length === 0 && words.length === 1 && mayBeShortened(words[0]!))
      ids = store.keywordSearch(`${phraseOf(words)}*`, few + 1, "recent").map((h) => h.id);
    if (ids && ids.length > 0 && ids.length <= few) anchors.push({ term, ids });
  }
  return anchors;
}

/** The words as one FTS5 phrase (quotes doubled). */
function phraseOf(words: readonly string[]): string {
  return `"${words.join(" ").replace(/"/g, '""')}"`;
}

/** Per anchored chunk, how many of the anchors it holds. */
export function anchoredChunks(anchors: readonly ExactAnchor[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const a of anchors) for (const id of a.ids) out.set(id, (out.get(id) ?? 0) + 1);
  return out;
}
