import type { Chunk, ChunkerStart, ChunkerTail, ChunkingOptions } from "./types.js";
import { countTokensRange, sliceByTokens } from "./tokens.js";

/**
 * Line-based markdown chunker.
 *
 * Chunks hold ~maxTokens tokens and are made of whole source lines (1-based, inclusive
 * line numbers; text = the lines joined by "\n"). A chunk is cut, by preference, before a
 * heading, at a blank line, before a list item, or at any line, choosing the best such
 * point in the last 40 % of the budget. Fenced code blocks are never cut unless they exceed
 * 4 × maxTokens. A line longer than maxTokens becomes several pieces that all carry its
 * line number. The next chunk repeats trailing lines of the previous one (≤ overlapTokens)
 * unless it starts at a heading.
 *
 * With `perEntry` (curated MEMORY.md / USER.md) every heading and top-level list item starts
 * its own entry (so does an unindented paragraph after a list entry); a heading with no body
 * text joins the entry after it. Entries are chunked independently (no overlap between them).
 *
 * With `ranges` (runs of lines of one visibility, visibility/line-tags.ts) each range is chunked on
 * its own, so a chunk never mixes entries different readers may see.
 *
 * Linear time: per-line token costs are ≥ 1, so a chunk never scans more than maxTokens lines.
 */
export function chunkMarkdown(
  text: string,
  opts: ChunkingOptions & {
    perEntry?: boolean;
    ranges?: readonly { from: number; to: number }[];
    /** Resume inside a text: the chunker's state at its line 0 (see ChunkerTail). */
    from?: ChunkerStart;
    /** Told where the chunker stood for the last chunk (null: it cannot be resumed there). */
    tail?: (t: ChunkerTail | null) => void;
  },
): Chunk[] {
  if (text.length === 0) {
    opts.tail?.(null);
    return [];
  }
  const doc = analyze(text, opts.maxTokens);
  // The chunk before a resume point stands first, so a chunk it already holds is not emitted again.
  const out: Chunk[] = opts.from?.prev ? [{ text: "", ...opts.from.prev }] : [];
  const base = out.length;
  let last: Omit<ChunkerTail, "firstFence"> | null = null;
  if (opts.ranges && !opts.perEntry) {
    // Ranges (lines [from, to), 0-based) are chunked independently: no chunk crosses one's edge.
    for (const r of opts.ranges)
      if (r.from < doc.n)
        last = chunkRange(doc, r.from, Math.min(r.to, doc.n), opts, out, r.from === 0 ? opts.from : undefined);
  } else if (opts.perEntry) {
    // Entries are chunked independently, so overlap never crosses an entry boundary.
    for (const [from, to] of entryRanges(doc)) last = chunkRange(doc, from, to, opts, out);
  } else {
    last = chunkRange(doc, 0, doc.n, opts, out, opts.from);
  }
  if (opts.tail) opts.tail(last && { ...last, seq: last.seq - base, firstFence: doc.fences[0] ?? -1 });
  return base ? out.slice(base) : out;
}

/** Line classes, stored in a Uint8Array. */
const Kind = {
  Text: 0,
  Blank: 1,
  Heading: 2,
  ListItem: 3,
  /** A line of a closed fenced code block, fences included. */
  Code: 4,
} as const;

/** The source as line offsets plus per-line facts (no per-line strings are kept). */
interface Doc {
  /** Source text with \r\n normalized to \n. */
  text: string;
  /** Number of lines (a trailing newline does not open an extra line). */
  n: number;
  /** Line i is text.slice(start[i], start[i + 1] - 1). */
  start: Float64Array;
  kind: Uint8Array;
  /** Token cost per line, at least 1 (a newline is worth something; bounds lines per chunk). */
  cost: Float64Array;
  /** prefix[i] = sum of cost[0..i-1]. */
  prefix: Float64Array;
  /** splittable[i]: a chunk may end just before line i (0 inside a protected fence). */
  splittable: Uint8Array;
  /** Line is longer than maxTokens and is cut into pieces on its own. */
  long: Uint8Array;
  /** Line starts without indentation (perEntry top-level detection). */
  topLevel: Uint8Array;
  /** Lines that may open or close a fence, in order. */
  fences: number[];
}

const FENCE = /^[ \t]*(`{3,}|~{3,})(.*)$/;

/** True when text[at] ends a marker: space, tab or end of line (end = index of the "\n"). */
function markerEnds(text: string, at: number, end: number): boolean {
  if (at >= end) return true;
  const c = text.charCodeAt(at);
  return c === 0x20 || c === 0x09;
}

/** ATX heading: 1–6 "#" then space or end of line (f = first non-blank char). */
function isHeading(text: string, f: number, end: number): boolean {
  let i = f;
  while (i < end && text.charCodeAt(i) === 0x23) i++;
  return i - f <= 6 && markerEnds(text, i, end);
}

/** List item marker: "-", "*", "+" or 1–9 digits with "." / ")", then space or end of line. */
function isListMarker(text: string, f: number, end: number): boolean {
  const c = text.charCodeAt(f);
  if (c === 0x2d || c === 0x2a || c === 0x2b) return markerEnds(text, f + 1, end);
  let i = f;
  while (i < end && i - f < 10 && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) i++;
  if (i === f || i - f > 9) return false;
  const d = text.charCodeAt(i);
  return (d === 0x2e || d === 0x29) && markerEnds(text, i + 1, end);
}

/** Text of lines [a, b] joined by "\n". */
function linesText(doc: Doc, a: number, b: number): string {
  return doc.text.slice(doc.start[a], doc.start[b + 1]! - 1);
}

/** Finds the lines and classifies each one (blank, heading, list item, fenced code). */
function analyze(source: string, maxTokens: number): Doc {
  const text = source.includes("\r") ? source.replace(/\r\n/g, "\n") : source;
  const max = Math.max(1, maxTokens);

  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  if (text.endsWith("\n")) n--;
  const start = new Float64Array(n + 1);
  for (let i = 0, pos = 0; i < n; i++) {
    start[i] = pos;
    const nl = text.indexOf("\n", pos);
    pos = nl === -1 ? text.length + 1 : nl + 1;
    start[i + 1] = pos;
  }

  const kind = new Uint8Array(n);
  const cost = new Float64Array(n);
  const prefix = new Float64Array(n + 1);
  const splittable = new Uint8Array(n + 1).fill(1);
  const long = new Uint8Array(n);
  const topLevel = new Uint8Array(n);
  const fences: number[] = [];

  for (let i = 0; i < n; i++) {
    const a = start[i]!;
    const b = start[i + 1]! - 1;
    const tokens = countTokensRange(text, a, b);
    cost[i] = Math.max(1, tokens);
    prefix[i + 1] = prefix[i]! + cost[i]!;
    if (tokens > max) long[i] = 1;
    let f = a;
    while (f < b && (text.charCodeAt(f) === 0x20 || text.charCodeAt(f) === 0x09)) f++;
    topLevel[i] = f === a ? 1 : 0;
    if (tokens === 0) {
      kind[i] = Kind.Blank;
      continue;
    }
    const c = text.charCodeAt(f);
    if (c === 0x23 /* # */ && f - a <= 3 && isHeading(text, f, b)) kind[i] = Kind.Heading;
    else if (isListMarker(text, f, b)) kind[i] = Kind.ListItem;
    else {
      kind[i] = Kind.Text;
      if (c === 0x60 /* ` */ || c === 0x7e /* ~ */) fences.push(i);
    }
  }

  markFences(text, start, fences, prefix, 4 * max, kind, splittable);

  // Long lines are always cut, so a chunk may end before and after them.
  for (let i = 0; i < n; i++) {
    if (long[i]) {
      splittable[i] = 1;
      splittable[i + 1] = 1;
    }
  }
  return { text, n, start, kind, cost, prefix, splittable, long, topLevel, fences };
}

/**
 * Marks fenced code blocks (CommonMark: the closing fence uses the same character, is at
 * least as long and has nothing after it). Blocks up to `protectTokens` may not be split.
 * Unclosed fences are left as plain text so a stray ``` cannot glue the rest of the file
 * into one chunk.
 */
function markFences(
  text: string,
  start: Float64Array,
  candidates: readonly number[],
  prefix: Float64Array,
  protectTokens: number,
  kind: Uint8Array,
  splittable: Uint8Array,
): void {
  const parsed = candidates.map((i) => FENCE.exec(text.slice(start[i], start[i + 1]! - 1)));
  /** Per fence char: shortest opener already known to have no closer later on. */
  const unclosed: Record<string, number> = { "`": Infinity, "~": Infinity };
  for (let x = 0; x < candidates.length; x++) {
    const open = parsed[x];
    if (!open) continue;
    const marker = open[1]!;
    const ch = marker[0]!;
    if (ch === "`" && open[2]!.includes("`")) continue; // backtick info strings exclude `
    if (marker.length >= unclosed[ch]!) continue;
    let y = x + 1;
    for (; y < candidates.length; y++) {
      const m = parsed[y];
      if (m && m[1]![0] === ch && m[1]!.length >= marker.length && m[2]!.trim() === "") break;
    }
    if (y === candidates.length) {
      unclosed[ch] = marker.length;
      continue;
    }
    const i = candidates[x]!;
    const close = candidates[y]!;
    kind.fill(Kind.Code, i, close + 1);
    if (prefix[close + 1]! - prefix[i]! <= protectTokens) splittable.fill(0, i + 1, close + 1);
    x = y;
  }
}

/** How good it is to end a chunk just before line p (higher is better). */
function splitScore(doc: Doc, p: number): number {
  const k = doc.kind[p];
  if (k === Kind.Heading) return 4;
  if (k === Kind.Blank || doc.kind[p - 1] === Kind.Blank) return 3;
  if (k === Kind.ListItem) return 2;
  return 1;
}

/** Share of the budget after which split points are considered "good enough". */
const TAIL_START = 0.6;

/**
 * Chunks lines [from, to) of `doc` and appends the chunks to `out`; returns the state for the last
 * chunk when it ends the range the ordinary way (else null: a long line or an extended fence).
 */
function chunkRange(
  doc: Doc,
  from: number,
  to: number,
  opts: ChunkingOptions,
  out: Chunk[],
  start?: ChunkerStart,
): Omit<ChunkerTail, "firstFence"> | null {
  const max = Math.max(1, Math.floor(opts.maxTokens));
  const overlap = Math.max(0, Math.min(Math.floor(opts.overlapTokens), Math.floor(max / 2)));
  const { cost, prefix, splittable, long } = doc;
  let s = from;
  /** The chunk starting at s must include this line (progress beyond the overlap). */
  let floor = start?.floor ?? from;
  /** The furthest line looked at to cut the chunks so far. */
  let through = start?.through ?? -1;

  while (s < to) {
    if (long[s]) {
      emitLongLine(doc, s, max, out);
      s = floor = s + 1;
      continue;
    }
    // Largest e such that lines [s, e) fit the budget.
    let e = s;
    while (e < to && !long[e] && prefix[e + 1]! - prefix[s]! <= max) e++;
    if (e === to) {
      const before = out[out.length - 1];
      const state = {
        line: s,
        floor,
        seq: out.length,
        prev: before ? { startLine: before.startLine, endLine: before.endLine } : null,
        through,
      };
      emit(doc, s, to - 1, out);
      return state;
    }

    through = Math.max(through, e);
    let best = -1;
    let bestScore = 0;
    let lastValid = -1;
    const tail = prefix[s]! + TAIL_START * max;
    for (let p = floor + 1; p <= e; p++) {
      if (!splittable[p]) continue;
      lastValid = p;
      if (prefix[p]! < tail) continue;
      const score = splitScore(doc, p);
      if (score >= bestScore) {
        best = p;
        bestScore = score;
      }
    }
    let p = best >= 0 ? best : lastValid;
    if (p < 0) {
      // Inside a protected fence: extend to its end (oversized but intact).
      p = e + 1;
      while (p < to && !splittable[p]) p++;
    }
    emit(doc, s, p - 1, out);
    if (p >= to) return null;

    // Overlap: whole trailing lines, ≤ overlap tokens, leaving room for line p.
    let q = p;
    if (overlap > 0 && doc.kind[p] !== Kind.Heading && !long[p]) {
      let sum = 0;
      while (q - 1 > s && !long[q - 1]) {
        const next = sum + cost[q - 1]!;
        if (next > overlap || next + cost[p]! > max) break;
        sum = next;
        q--;
      }
      while (q < p && !splittable[q]) q++;
    }
    s = q;
    floor = p;
  }
  return null;
}

/**
 * Emits lines [a, b] with leading/trailing blank lines trimmed. Skips blank-only chunks and
 * chunks already contained in the previous one (overlap followed only by blank lines).
 */
function emit(doc: Doc, a: number, b: number, out: Chunk[]): void {
  while (a <= b && doc.kind[a] === Kind.Blank) a++;
  while (b >= a && doc.kind[b] === Kind.Blank) b--;
  if (a > b) return;
  const last = out[out.length - 1];
  if (last && last.startLine <= a + 1 && last.endLine >= b + 1) return;
  out.push({ text: linesText(doc, a, b), startLine: a + 1, endLine: b + 1 });
}

/** A line above the budget: consecutive pieces, each carrying the line's number. */
function emitLongLine(doc: Doc, i: number, max: number, out: Chunk[]): void {
  for (const piece of sliceByTokens(linesText(doc, i, i), max)) {
    if (piece.trim() === "") continue;
    out.push({ text: piece, startLine: i + 1, endLine: i + 1 });
  }
}

/**
 * Entry ranges [from, to) for curated files: headings and top-level list items start
 * entries, as does an unindented paragraph after a blank line that follows a list entry.
 * Indented lines, lazy continuations and a heading's own body stay with their entry. A
 * heading without body text is merged into the entry that follows it.
 */
function entryRanges(doc: Doc): Array<[number, number]> {
  const { kind, topLevel } = doc;
  const n = doc.n;
  const ranges: Array<[number, number]> = [];
  let start = 0;
  /** Current entry holds only headings (and blank lines) so far. */
  let headingOnly = false;
  /** Current entry is a list item, so a later unindented paragraph is an entry of its own. */
  let listEntry = false;
  let prevBlank = false;

  for (let i = 0; i < n; i++) {
    const k = kind[i];
    const top = topLevel[i] === 1;
    // Inner fence lines are Code and never follow a Blank line, so only an opening fence
    // line can start a paragraph entry.
    const starts =
      k === Kind.Heading ||
      (k === Kind.ListItem && top) ||
      ((k === Kind.Text || k === Kind.Code) && top && prevBlank && listEntry);
    if (starts) {
      if (i > start && !headingOnly) {
        ranges.push([start, i]);
        start = i;
      }
      headingOnly = k === Kind.Heading;
      listEntry = k === Kind.ListItem;
    } else if (k !== Kind.Blank) {
      headingOnly = false; // body text or continuation of the current entry
    }
    prevBlank = k === Kind.Blank;
  }
  if (start < n) ranges.push([start, n]);
  return ranges;
}
