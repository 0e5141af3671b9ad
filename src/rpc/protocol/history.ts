import type { FileClass } from "./memory.js";

/** Counts by kind of memory file (curated MEMORY.md/USER.md, daily logs, notes, transcripts). */
export type KindCounts = Record<FileClass, number>;

/** One day or month of the index over time. */
export interface HistoryPeriod {
  /** YYYY-MM-DD or YYYY-MM. */
  period: string;
  files: KindCounts;
  chunks: KindCounts;
}

/** `index.history`: the files and chunks of each kind by the date of their memories. */
export interface IndexHistoryResult {
  workspace: string;
  by: "day" | "month";
  /** Oldest first, every period from the first shown to the newest with memories (empty ones as zeros); at most `limit`. */
  periods: HistoryPeriod[];
  /** What is older than the first period shown, summed. */
  before: { files: KindCounts; chunks: KindCounts };
  /** Every file and chunk the scope sees. */
  total: { files: number; chunks: number };
}
