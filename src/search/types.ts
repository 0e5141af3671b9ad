import type { ChunkRow } from "../index/repos/store.js";
import type { SearchHit, SearchResponse } from "../rpc/protocol.js";

export type { SearchHit, SearchResponse };

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
  /** Also say who may see each hit (as `explain` does): recall's explain shows it. */
  withVisibility?: boolean;
  /** Return the wall time of each stage (`timings`; also with `explain`). */
  timings?: boolean;
  /**
   * The moment recency counts from (ms since epoch; recall's `referenceDate`); default the
   * searcher's clock. A memory dated after it ages as far as one dated before it.
   */
  now?: number;
  /** Only chunks with one of these visibilities (a group's scope, visibility/visibility.ts); absent: all. */
  visible?: readonly string[];
  /**
   * false: the keyword leg is not run (recall of a prompt without a topic word, whose keyword hits
   * could give the relevance decision no evidence: lists of nearly every chunk for nothing).
   */
  keyword?: boolean;
  /** Called with the embedded query when the vector leg ran (recall's relevance decision reuses it). */
  onQueryVector?: (vector: Float32Array) => void;
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
