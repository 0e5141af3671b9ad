/** Wire results of the memory.* methods: search, get, recall, save, capture. */

/** The class of a memory file. */
export type FileClass = "curated" | "daily" | "note" | "transcript";

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
  /** With explain: the entities the memory names and which of its statements superseded which (src/facts). */
  facts?: { entities: string[]; links: string[] };
  /** Who may see it (with explain): private, group:<id>, open or shared (docs/security.md). */
  visibility?: string;
}

export interface SearchResponse {
  results: SearchHit[];
  /** Which legs ran. */
  mode: "hybrid" | "keyword" | "vector" | "none";
  model?: string;
  /** Why the vector leg did not run, when it did not. */
  fallback?: string;
  tookMs: number;
  /** With `timings` or `explain`: ms per stage (keyword, entities, vector, fusion, rows, passage, path, rank, results) and total. */
  timings?: Record<string, number>;
  /** With `explain`, when the prompt names entities the index holds: those (aliases included) and the co-occurring ones followed (search/entity-leg.ts). */
  entities?: { prompt: string[]; linked: string[] };
}

export interface MemoryGetResult {
  path: string;
  text: string;
  from: number;
  to: number;
  totalLines: number;
  truncated: boolean;
  nextFrom?: number;
  /** Lines left empty because the request's scope may not see them (another conversation's entries). */
  hidden?: number;
}

export interface RecalledMemory {
  path: string;
  startLine: number;
  endLine: number;
  score: number;
  text: string;
  /** Times this memory was written (its duplicate group); shown at the newest. */
  duplicates?: number;
  /** A newer entry (path:line) states a different value (only with includeHistory). */
  supersededBy?: string;
  /**
   * Where it came from: the workspace; a team's (shared) one also says so, and `claimedBy` the
   * `#by/<user>/<device>` tag of its bullet ("user@device"), as the text claims it (not verified).
   */
  source?: { workspace: string; shared?: true; claimedBy?: string };
  /** YYYY-MM-DD of a daily log or transcript chunk. */
  date?: string;
}

/** One candidate's verdict (recall with explain). */
export interface RecallCandidateExplain {
  /** Who may see it: private, group:<id>, open or shared (docs/security.md). */
  visibility?: string;
  path: string;
  startLine: number;
  endLine: number;
  score: number;
  kept: boolean;
  /** Kept but not injected: the budget ran out, or it repeated an injected memory. */
  injected: boolean;
  reason: string;
  coverage: number;
  /** The prompt words it holds. */
  words: string[];
  rareWords: string[];
  vectorZ: number | null;
  dateMatch: boolean;
}

export interface RecallExplain {
  relevance: "auto" | "off";
  /** Why nothing was injected, when nothing was. */
  empty?: string;
  /** Date windows read from the query. */
  dates: { from: string; to: string; text: string }[];
  /** Facts over time (search/recall-facts.ts): the prompt's entities holding statements, and the statements left out (or marked) as superseded by a newer one, or said after the recall's moment. */
  facts?: {
    entities: string[];
    links: { entity: string; statement: string; supersededBy?: string; on?: string; later?: boolean }[];
  };
  gathering: boolean;
  /** The legs the search ran: "vector" alone for a prompt without a topic word (its keyword hits could be no evidence). */
  search: "hybrid" | "keyword" | "vector" | "none";
  /** The prompt's words as the index sees them: chunks holding each (df) and its weight (idf). */
  words: { word: string; df: number; idf: number; rare: boolean; subject: boolean }[];
  chunks: number;
  /** The prompt's similarity to random memories of the index (the vector null), when vectors ran. */
  nullSimilarity: { mean: number; sd: number; n: number } | null;
  candidates: RecallCandidateExplain[];
}

export interface RecallResult {
  /** A <cortex_memories> block ready to inject ("" when nothing was found). */
  context: string;
  memories: RecalledMemory[];
  memory_count: number;
  tokens_used: number;
  /** With `timings`: ms per stage (the search's, then consolidation, relevance, select, pack, record) and total. */
  timings?: Record<string, number>;
  /** With explain: why each memory was kept or dropped. */
  explain?: RecallExplain;
}

export interface SaveResult {
  /** False when deduplicated against a recent save. */
  stored: boolean;
  /** Index key of the file ("memory/2026-11-29.md" or "MEMORY.md"). */
  path: string;
  /** 1-based lines written. */
  startLine?: number;
  endLine?: number;
  /** Secrets replaced by [REDACTED:kind] markers. */
  redactions: number;
  redactedKinds?: string[];
  /** "path:line" of the recent save this one duplicates (stored: false). */
  duplicateOf?: string;
  /** The file was indexed before the reply (false: written, indexing failed or deferred). */
  indexed?: boolean;
  /** Why the entry is not searchable when the index passed over its file (e.g. the file is over the size cap). */
  notIndexed?: string;
  /** The day's log (or MEMORY.md) has git conflict markers: the save went to the sidecar `path`. */
  conflict?: { file: string; savedTo: string; fix: string };
}

export interface CaptureResult {
  /** At least one entry was written. */
  stored: boolean;
  /** Entries written. */
  entries: number;
  /** Index key of the (last) daily log written. */
  path?: string;
  /** Every file written (a session spanning midnight writes two daily logs). */
  paths?: string[];
  /** Lines of the entries in `path`. */
  startLine?: number;
  endLine?: number;
  /** Turns skipped: trivial, too short, or without a reply. */
  skipped: number;
  /** Entries not written because a recent write says the same. */
  duplicates?: number;
  redactions?: number;
  /** Messages not seen by an earlier capture of this session. */
  messages?: number;
  indexed?: boolean;
}
