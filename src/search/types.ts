import type { FileClass } from "../ingest/types.js";
import type { ChunkRow } from "../index/store.js";
import type { StageTimings } from "./stage-timer.js";

export interface SearchRequest {
  query: string;
  /** Results to return (default: config search.maxResults). */
  limit?: number;
  /** Drop results scoring below this (default 0). */
  minScore?: number;
  /** Include each stage's contribution per hit. */
  explain?: boolean;
  /** Also return each hit's full chunk text and content hash (recall and evaluation use them). */
  fullText?: boolean;
  /** Return the wall time of each stage (`timings`; also with `explain`). */
  timings?: boolean;
}

/** A chunk on its way through the ranking stages. */
export interface Candidate {
  id: number;
  textScore: number;
  vectorScore: number;
  score: number;
  row?: ChunkRow;
  /** Stage name → contribution/value, filled when explaining. */
  explain: Record<string, number>;
}

export interface SearchHit {
  path: string;
  startLine: number;
  endLine: number;
  score: number;
  vectorScore: number;
  textScore: number;
  snippet: string;
  /** The file's class: curated, daily, note or transcript. */
  source: FileClass;
  explain?: Record<string, number>;
  /** Full chunk text (with fullText). */
  text?: string;
  /** Chunk content hash (with fullText). */
  hash?: string;
  /** YYYY-MM-DD of a daily log or a transcript chunk (with fullText). */
  date?: string;
}

export interface SearchResponse {
  results: SearchHit[];
  /** Which legs ran. */
  mode: "hybrid" | "keyword" | "vector" | "none";
  model?: string;
  /** Why the vector leg did not run, when it did not. */
  fallback?: string;
  tookMs: number;
  /** With `timings` or `explain`: ms per stage (keyword, vector, fusion, rows, passage, path, rank, results) and total. */
  timings?: StageTimings;
}
