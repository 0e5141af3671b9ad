import { chunkTagged } from "./chunk-file.js";
import type { TranscriptBase } from "./transcript-incremental.js";
import { lineVisibilities } from "../visibility/line-tags.js";
import type { Chunk, ChunkerStart, ChunkerTail, ChunkingOptions } from "./types.js";

/**
 * Where re-chunking resumes after an append: the last chunk starts at `line` (byte `offset`, chunk
 * `seq`; a transcript's `malformed` lines precede it). A markdown log's also carries the chunker's
 * state there (`chunker`: the 0-based line the chunk had to include, and the chunk before it).
 */
export type ResumePoint = TranscriptBase & { chunker?: ChunkerStart };

/**
 * Appends to a markdown log (a daily log, a note) re-chunk only its tail: the chunker's state at the
 * start of the log's last chunk is kept with the file (ResumePoint: byte offset and line of that
 * chunk, its sequence number, the line it had to include and the chunk before), and after an append
 * the log is read and chunked from there on. The chunks are the ones chunking the whole log gives:
 *
 * - before the last chunk, the chunker only looked at lines that an append cannot change, and it
 *   never looked past the budget of the chunk it was cutting (ingest/markdown.ts);
 * - the lines from the resume line on are classified the same way read alone: that line starts an
 *   entry (unindented, not blank, not a heading) and the line before it is not blank or a heading,
 *   so no entry and no visibility (visibility/line-tags.ts) reaches across it; no fence-like line
 *   (``` or ~~~) comes before it, so no fence can open before it and close after.
 *
 * A resume point is kept only where all that holds, and only for a text that ends with a newline,
 * has no `\r`, no git conflict marker and no frontmatter; otherwise the next change re-chunks the
 * whole file (as every change did before).
 */

/** The text in hand when a resume point is decided: its first line and byte in the file, its chunks' base. */
export interface InHand {
  text: string;
  /** 0-based line of the file where `text` starts. */
  line: number;
  /** Byte offset of the file where `text` starts. */
  offset: number;
  /** Chunks of the file before the first one chunked from `text`. */
  seq: number;
}

const HEADING = /^ {0,3}#{1,6}(?:\s|$)/;

/** Whether the text in hand could hide something that reaches across lines (then: no resume). */
export function unsafeForResume(text: string): boolean {
  return text.includes("\r") || text.includes("<<<<<<<");
}

/** The resume point after chunking `hand` (null: the next change re-chunks the whole file). */
export function resumePointOf(hand: InHand, tail: ChunkerTail | null): ResumePoint | null {
  const { text } = hand;
  if (!tail || !text.endsWith("\n") || unsafeForResume(text)) return null;
  if (hand.line === 0 && text.startsWith("---")) return null; // frontmatter, or what an append could close into one
  if (tail.firstFence !== -1 && tail.firstFence < tail.line) return null;
  const starts = lineStarts(text, tail.line + 1);
  if (tail.line > 0) {
    // A new resume line: it starts an entry, and the line before it belongs to one.
    const line = text.slice(starts[tail.line]!, text.indexOf("\n", starts[tail.line]!));
    const before = text.slice(starts[tail.line - 1]!, starts[tail.line]! - 1);
    if (!/^\S/.test(line) || HEADING.test(line) || before.trim() === "" || HEADING.test(before)) return null;
  }
  const at = hand.line;
  return {
    offset: hand.offset + Buffer.byteLength(text.slice(0, starts[tail.line]!)),
    line: at + tail.line + 1,
    seq: hand.seq + tail.seq,
    malformed: 0,
    chunker: {
      floor: at + tail.floor,
      prev: tail.prev && { startLine: tail.prev.startLine + at, endLine: tail.prev.endLine + at },
      through: tail.through < 0 ? -1 : at + tail.through,
      ...(tail.vis !== undefined ? { vis: tail.vis } : {}),
    },
  };
}

/** Character offsets of the first `count` lines of a text. */
function lineStarts(text: string, count: number): number[] {
  const out = [0];
  for (let i = text.indexOf("\n"); i !== -1 && out.length < count; i = text.indexOf("\n", i + 1)) out.push(i + 1);
  return out;
}

export interface ResumedChunks {
  /** The chunks from base.seq on, with the file's line numbers. */
  chunks: Chunk[];
  /** Lines in the whole file. */
  lines: number;
  resume: ResumePoint | null;
}

/**
 * Chunks a markdown log from its resume point on; `text` holds the file from base.offset to its end.
 * Null when the append changed the visibility of lines the chunks before were cut by (someone added
 * a line to the last entry with another tag): then the whole log is chunked again.
 */
export function chunkNoteFrom(text: string, base: ResumePoint, opts: ChunkingOptions): ResumedChunks | null {
  const s = base.line - 1;
  const chunker = base.chunker!;
  const vis = lineVisibilities(text.split("\n"));
  // The resume line keeps its visibility (a range edge there stays), and so do the lines looked at before.
  for (let j = 0; j <= Math.max(0, chunker.through - s); j++)
    if ((vis[j] ?? "open") !== (chunker.vis ?? "open")) return null;
  let tail: ChunkerTail | null = null;
  const chunks = chunkTagged(
    text,
    opts,
    {
      from: {
        floor: chunker.floor - s,
        prev: chunker.prev && { startLine: chunker.prev.startLine - s, endLine: chunker.prev.endLine - s },
        through: chunker.through - s,
      },
      tail: (t) => (tail = t),
    },
    vis,
  ).map((c) => ({ ...c, startLine: c.startLine + s, endLine: c.endLine + s }));
  let lines = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++;
  if (text.length > 0 && !text.endsWith("\n")) lines++;
  return {
    chunks,
    lines: s + lines,
    resume: resumePointOf({ text, line: s, offset: base.offset, seq: base.seq }, tail),
  };
}
