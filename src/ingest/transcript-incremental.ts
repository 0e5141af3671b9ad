import { chunkTranscript, parseTranscript } from "./transcript.js";
import type { Chunk, ChunkingOptions } from "./types.js";

/** Where a transcript's chunking starts: byte offset and line of the first line, chunk seq, malformed lines before. */
export interface TranscriptBase {
  offset: number;
  line: number;
  seq: number;
  malformed: number;
}

export interface TranscriptChunks {
  /** Chunks from base.seq on. */
  chunks: Chunk[];
  /** Malformed lines in the whole file. */
  malformed: number;
  /** Lines in the whole file. */
  lines: number;
  /** Where to resume after the next append: the start of the last chunk. */
  resume: TranscriptBase;
}

export const TRANSCRIPT_START: TranscriptBase = { offset: 0, line: 1, seq: 0, malformed: 0 };

/** Byte offset (within buf) of the start of the line `skip` lines after the first. */
function lineOffset(buf: Uint8Array, skip: number): number {
  let pos = 0;
  for (let i = 0; i < skip; i++) {
    const nl = buf.indexOf(10, pos);
    if (nl === -1) return buf.length;
    pos = nl + 1;
  }
  return pos;
}

function countLines(buf: Uint8Array): number {
  let n = 0;
  for (let pos = buf.indexOf(10); pos !== -1; pos = buf.indexOf(10, pos + 1)) n++;
  return buf.length > 0 && buf[buf.length - 1] !== 10 ? n + 1 : n;
}

/**
 * Chunks a transcript from `base` on. `buf` holds the file's bytes from base.offset to its end. The
 * chunking is append-stable: re-chunking from the returned resume point after lines were appended
 * gives the same chunks as chunking the whole file, so only the new lines (and the last chunk) are read.
 */
export function chunkTranscriptFrom(buf: Uint8Array, base: TranscriptBase, opts: ChunkingOptions): TranscriptChunks {
  const text = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString("utf8");
  const { messages, stats } = parseTranscript(text, { firstLine: base.line });
  const chunks = chunkTranscript(messages, opts);
  const malformed = base.malformed + stats.malformed;
  const lines = base.line - 1 + countLines(buf);
  const last = chunks[chunks.length - 1];
  if (!last) return { chunks, malformed, lines, resume: base };
  const line = last.startLine;
  const rel = lineOffset(buf, line - base.line);
  const tail = parseTranscript(Buffer.from(buf.buffer, buf.byteOffset + rel, buf.byteLength - rel).toString("utf8"), {
    firstLine: line,
  });
  const seq = base.seq + chunks.findIndex((c) => c.startLine >= line);
  return {
    chunks,
    malformed,
    lines,
    resume: { offset: base.offset + rel, line, seq, malformed: malformed - tail.stats.malformed },
  };
}
