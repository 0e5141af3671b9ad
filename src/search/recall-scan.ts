import { units, type Unit } from "../ingest/units.js";
import { stem } from "./excerpt.js";
import { STOP_WORDS } from "./keyword/index.js";
import { WORDS, cpAt, isHigh, isLow, isWordCp } from "../util/word-chars.js";

/**
 * A candidate memory's text as recall needs it, read once per recall: its units (lines or
 * messages) with the query stems each holds (for the stems' weights and the excerpt), and the
 * prompt's stems the whole text holds (for the relevance decision). One lowercasing and one pass
 * over the words serve both, and a word is stemmed only when it begins like a stem of either set
 * (Porter keeps a word's first two letters), so a long memory costs little.
 */
export interface ScannedText {
  units: Unit[];
  /** Per unit, the query stems it holds: what queryStemMatcher(query)(unit.text) gives. */
  held: ReadonlySet<string>[];
  /** The prompt's stems the text holds: what heldStems(text, profile) gives. */
  promptStems: ReadonlySet<string>;
}

export interface ScanStems {
  /** The query's content stems (contentStems(query)), matched per unit (excerpt.ts queryStemMatcher's rule). */
  query: ReadonlySet<string>;
  /** The prompt profile's word stems, matched over the whole text (relevance.ts heldStems' rule). */
  prompt: ReadonlySet<string>;
}

const EMPTY: ReadonlySet<string> = new Set();

/** Whether a word (a maximal run of WORDS) starts at `i`, and where it ends (-1: none starts there). */
function wordEndAt(s: string, i: number): number {
  if (i > 0) {
    // `i` begins a stem's prefix, so never the second half of a surrogate pair.
    const prev = s.charCodeAt(i - 1);
    const before = isLow(prev) && i >= 2 && isHigh(s.charCodeAt(i - 2)) ? cpAt(s, i - 2) : prev;
    if (isWordCp(before)) return -1;
  }
  let j = i;
  while (j < s.length) {
    const cp = cpAt(s, j);
    if (!isWordCp(cp)) break;
    j += cp >= 0x10000 ? 2 : 1;
  }
  return j > i ? j : -1;
}

/** The first two UTF-16 units of a word as one number (one unit: that unit alone), without slicing. */
function prefixKey(s: string, at: number, end: number): number {
  return end - at >= 2 ? s.charCodeAt(at) * 0x10000 + s.charCodeAt(at + 1) : s.charCodeAt(at) + 0x1_0000_0000;
}

function prefixesOf(stems: ReadonlySet<string>): { keys: Set<number>; all: boolean } {
  const keys = new Set<number>();
  let all = false;
  for (const st of stems) {
    if (st.length < 2) all = true;
    else keys.add(prefixKey(st, 0, st.length));
  }
  return { keys, all };
}

/** Words are kept as start × WORD_SPAN + length: one number each, sorted natively into text order. */
const WORD_SPAN = 2 ** 21;

/**
 * The start and end of each word of `lower` that begins with one of `prefixes` (two UTF-16 units
 * each), in text order: found with indexOf, so the other words cost nothing.
 */
function wordsWithPrefixes(lower: string, prefixes: readonly string[]): number[] {
  const found: number[] = [];
  for (const pre of prefixes) {
    for (let i = lower.indexOf(pre); i !== -1; i = lower.indexOf(pre, i + 1)) {
      const end = wordEndAt(lower, i);
      if (end !== -1) found.push(i * WORD_SPAN + (end - i));
    }
  }
  // Text order (two prefixes never start the same word).
  const sorted = prefixes.length > 1 ? Float64Array.from(found).sort() : found;
  const out: number[] = new Array<number>(2 * sorted.length);
  for (let k = 0; k < sorted.length; k++) {
    const at = Math.floor(sorted[k]! / WORD_SPAN);
    out[2 * k] = at;
    out[2 * k + 1] = at + (sorted[k]! % WORD_SPAN);
  }
  return out;
}

/** Every word of `lower` (start and end), in text order. */
function allWords(lower: string): number[] {
  const found: number[] = [];
  WORDS.lastIndex = 0;
  for (let m = WORDS.exec(lower); m !== null; m = WORDS.exec(lower)) found.push(m.index, m.index + m[0].length);
  return found;
}

/** A scanner for one recall's stems: scan(text) of each candidate. */
export function textScanner(stems: ScanStems): (text: string) => ScannedText {
  const q = prefixesOf(stems.query);
  const p = prefixesOf(stems.prompt);
  const anyQuery = stems.query.size > 0;
  const anyPrompt = stems.prompt.size > 0;
  // A one-letter query stem matches words of any beginning: then every word is read.
  const prefixes = q.all
    ? null
    : [...new Set([...q.keys, ...p.keys])].map((k) => String.fromCharCode(Math.floor(k / 0x10000), k % 0x10000));
  return (text) => {
    const us = units(text);
    const held: ReadonlySet<string>[] = us.map(() => EMPTY);
    const promptStems = new Set<string>();
    if (!anyQuery && !anyPrompt) return { units: us, held, promptStems };
    // Which unit each line belongs to (blank lines: none).
    const lineUnit: number[] = [];
    us.forEach((u, k) => {
      for (let l = u.line; l < u.line + u.lines; l++) lineUnit[l] = k;
    });
    // Lowercasing keeps the lines (it never adds or removes a newline), so words map to lines.
    const lower = text.toLowerCase();
    // (A text of more than WORD_SPAN units, which no chunk is, is read word by word.)
    const words = prefixes && lower.length < WORD_SPAN ? wordsWithPrefixes(lower, prefixes) : allWords(lower);
    let line = 0;
    let nextBreak = lower.indexOf("\n");
    for (let k = 0; k < words.length; k += 2) {
      const at = words[k]!;
      const end = words[k + 1]!;
      const key = prefixKey(lower, at, end);
      const forQuery = anyQuery && (q.all || q.keys.has(key));
      // heldStems reads words of at least two code points (one astral letter is two units).
      const forPrompt = anyPrompt && p.keys.has(key) && !(end - at === 2 && isHigh(lower.charCodeAt(at)));
      if (!forQuery && !forPrompt) continue;
      while (nextBreak !== -1 && nextBreak < at) {
        line++;
        nextBreak = lower.indexOf("\n", nextBreak + 1);
      }
      const w = lower.slice(at, end);
      const st = stem(w);
      // A stop word of a prompt word's stem is not that word ("on" is not "one": both stem to "on").
      if (forPrompt && stems.prompt.has(st) && prefixKey(st, 0, st.length) === key && !STOP_WORDS.has(w))
        promptStems.add(st);
      if (forQuery && stems.query.has(st) && !STOP_WORDS.has(w)) {
        const u = lineUnit[line];
        if (u === undefined) continue;
        const set = held[u] === EMPTY ? (held[u] = new Set<string>()) : held[u];
        (set as Set<string>).add(st);
      }
    }
    return { units: us, held, promptStems };
  };
}
