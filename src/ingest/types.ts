import type { FileClass } from "../rpc/protocol.js";

/** What kind of memory file a path is (the wire type); decides chunking, ranking and privacy. */
export type { FileClass };

/** One retrievable piece of a memory file. Lines are 1-based and inclusive. */
export interface Chunk {
  /** Text that is indexed (FTS) and embedded. */
  text: string;
  startLine: number;
  endLine: number;
  /** Epoch milliseconds of the newest message in the chunk (transcripts only). */
  timestamp?: number;
  /** Who may see it (visibility/visibility.ts); undefined: open. */
  visibility?: string;
}

export interface TranscriptStats {
  /** Lines that were not valid JSON or not an object. */
  malformed: number;
  /** Records dropped on purpose (system, tool-only, heartbeat, ...). */
  dropped: number;
  /** Messages kept. */
  kept: number;
}

export interface ChunkingOptions {
  /** Target chunk size in tokens (approx.; see countTokens). */
  maxTokens: number;
  /** Overlap between consecutive chunks in tokens. */
  overlapTokens: number;
}

export const DEFAULT_CHUNKING: ChunkingOptions = { maxTokens: 400, overlapTokens: 80 };

/** The chunker's state where a resumed chunking starts (0-based lines of the text it is given). */
export interface ChunkerStart {
  /** The first chunk must include this line (the lines before it are overlap). */
  floor: number;
  /** The chunk before (its lines may be ≤ 0: it starts before the text). */
  prev: { startLine: number; endLine: number } | null;
  /**
   * The furthest line the chunker looked at to cut the chunks before (-1: none), and the visibility
   * of the resume line: the lines from the resume line to `through` must keep it, or the visibility
   * ranges the chunks before were cut in have changed.
   */
  through: number;
  vis?: string;
}

/**
 * Where the chunker stood when it emitted the text's last chunk: chunking again from `line` with
 * this state gives the same chunks as chunking the whole text, when the lines before `line` do not
 * change the lines after it (see ingest/markdown-resume.ts, which decides that).
 */
export interface ChunkerTail extends ChunkerStart {
  /** 0-based line the last chunk starts at. */
  line: number;
  /** Chunks emitted before the last one. */
  seq: number;
  /** 0-based first fence-like line (``` or ~~~), -1 when none. */
  firstFence: number;
}
