import { stemmer } from "stemmer";
import { STOP_WORDS } from "./keyword/index.js";
import { units, type Unit } from "../ingest/units.js";
import { lowerWords } from "../util/word-chars.js";

export interface Excerpt {
  text: string;
  /** 0-based first and last chunk-text line of the excerpt (for narrowing citations). */
  firstLine: number;
  lastLine: number;
  /** Whether any query word matched. */
  matched: boolean;
  /** The units it shows. */
  units: Unit[];
}

/** Stems by word: a memory's vocabulary is small and recall stems every line of 30 chunks. */
const stems = new Map<string, string>();
const STEM_CACHE = 50_000;

/**
 * Porter stem of a word, lowercased: the algorithm of the keyword index's FTS5 `porter` tokenizer,
 * so a line matches the query words its chunk was found by (activities ~ activity, stories ~ story).
 */
export function stem(word: string): string {
  const w = word.toLowerCase();
  let s = stems.get(w);
  if (s === undefined) {
    if (stems.size >= STEM_CACHE) stems.clear();
    stems.set(w, (s = stemmer(w)));
  }
  return s;
}

export function contentStems(text: string): string[] {
  return lowerWords(text)
    .filter((w) => !STOP_WORDS.has(w))
    .map(stem);
}

/**
 * The query stems a text holds: what `new Set(contentStems(text))` ∩ `queryStems` is, but only the
 * words that begin like one of the stems are stemmed (Porter keeps a word's first two letters; a
 * one-letter stem turns the shortcut off), so scoring the lines of many memories costs little.
 */
export function queryStemMatcher(queryStems: ReadonlySet<string>): (text: string) => Set<string> {
  const prefixes = new Set<string>();
  let all = false;
  for (const st of queryStems) {
    if (st.length < 2) all = true;
    prefixes.add(st.slice(0, 2));
  }
  return (text) => {
    const out = new Set<string>();
    if (queryStems.size === 0) return out;
    for (const w of lowerWords(text)) {
      if ((!all && !prefixes.has(w.slice(0, 2))) || STOP_WORDS.has(w)) continue;
      const st = stem(w);
      if (queryStems.has(st)) out.add(st);
    }
    return out;
  };
}

/** A chunk's units with the query stems each holds (computed once, for excerpt and the stems' weights). */
export interface ScoredUnits {
  units: Unit[];
  held: readonly ReadonlySet<string>[];
}

export function scoreUnits(text: string, held: (text: string) => Set<string>): ScoredUnits {
  const us = units(text);
  return { units: us, held: us.map((u) => held(u.text)) };
}

export interface ExcerptOptions {
  /** Longest excerpt in characters. */
  maxChars: number;
  /** Units of context kept before/after each matching unit. */
  before: number;
  after: number;
  /** Other units are kept when they score at least this fraction of the best one. */
  keepRatio: number;
}

export const DEFAULT_EXCERPT: ExcerptOptions = { maxChars: 700, before: 0, after: 2, keepRatio: 0.5 };

/**
 * The part of a chunk that answers a query: the units (lines or messages) that match the query's
 * words best, weighted by how rare each word is (`idf`), with a little context after each (a reply
 * often follows the line that matches; the line before rarely adds to it). Without any match, the
 * chunk's beginning.
 */
export function excerpt(
  text: string,
  queryStems: ReadonlySet<string>,
  idf: (stem: string) => number,
  opts: ExcerptOptions = DEFAULT_EXCERPT,
  /** Units already shown elsewhere (an overlapping chunk): left out, neither scored nor used as context. */
  isShown: (u: Unit) => boolean = () => false,
  /** The text's units and their query stems, when already known (scoreUnits). */
  scored: ScoredUnits = scoreUnits(text, queryStemMatcher(queryStems)),
): Excerpt {
  const { us, pos } = unshown(scored.units, isShown);
  if (us.length === 0) return { text: "", firstLine: 0, lastLine: 0, matched: false, units: [] };
  const scores = pos.map((p) => {
    let s = 0;
    for (const st of scored.held[p]!) s += idf(st);
    return s;
  });
  const best = Math.max(...scores);
  const keep = new Set<number>();
  if (best > 0) {
    const order = scores
      .map((s, i) => [s, i] as const)
      .filter(([s]) => s >= best * opts.keepRatio)
      .sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    let chars = 0;
    for (const [, i] of order) {
      const add: number[] = [];
      for (let j = i - opts.before; j <= i + opts.after; j++) {
        if (j < 0 || j >= us.length) continue;
        // A list entry's context is its own continuation lines, never the next entries.
        if (j > i && isEntry(us[i]!) && isEntry(us[j]!)) break;
        if (!keep.has(j)) add.push(j);
      }
      const cost = add.reduce((n, j) => n + us[j]!.text.length + 1, 0);
      if (keep.size > 0 && chars + cost > opts.maxChars) break;
      for (const j of add) keep.add(j);
      chars += cost;
    }
  } else {
    let chars = 0;
    for (let j = 0; j < us.length && chars < opts.maxChars / 2; j++) {
      keep.add(j);
      chars += us[j]!.text.length + 1;
    }
  }
  const idx = [...keep].sort((a, b) => a - b);
  const out = render(us, pos, idx);
  return {
    ...out,
    text: out.text.length > opts.maxChars ? `${out.text.slice(0, opts.maxChars)}…` : out.text,
    matched: best > 0,
  };
}

const ENTRY = /^\s*(?:[-*+]|\d{1,3}[.)])\s/;

/** A list item of a markdown chunk: an entry of its own (a daily bullet, a MEMORY.md fact). */
export function isEntry(u: Unit): boolean {
  return ENTRY.test(u.text);
}

/** The whole chunk, less the units already shown elsewhere (null when every unit was). */
export function whole(
  text: string,
  isShown: (u: Unit) => boolean = () => false,
  all: readonly Unit[] = units(text),
): Excerpt | null {
  const { us, pos } = unshown(all, isShown);
  if (us.length === 0) return null;
  if (us.length === pos[pos.length - 1]! + 1) {
    // Nothing left out: the text as written (blank lines and all).
    return { text, firstLine: 0, lastLine: text.split("\n").length - 1, matched: true, units: us };
  }
  return {
    ...render(
      us,
      pos,
      us.map((_, i) => i),
    ),
    matched: true,
  };
}

/** The units of a chunk not shown yet, with each one's position among all units (gaps become "…"). */
function unshown(all: readonly Unit[], isShown: (u: Unit) => boolean): { us: Unit[]; pos: number[] } {
  const us: Unit[] = [];
  const pos: number[] = [];
  all.forEach((u, i) => {
    if (isShown(u)) return;
    us.push(u);
    pos.push(i);
  });
  return { us, pos };
}

function render(us: Unit[], pos: number[], idx: number[]): Omit<Excerpt, "matched"> {
  const parts: string[] = [];
  idx.forEach((j, k) => {
    if (k > 0 && pos[j]! !== pos[idx[k - 1]!]! + 1) parts.push("…");
    parts.push(us[j]!.text);
  });
  const first = us[idx[0]!]!;
  const last = us[idx[idx.length - 1]!]!;
  return {
    text: parts.join("\n"),
    firstLine: first.line,
    lastLine: last.line + last.lines - 1,
    units: idx.map((j) => us[j]!),
  };
}
