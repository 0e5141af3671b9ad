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
