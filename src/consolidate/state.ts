import type { IndexStore } from "../index/repos/store.js";
import type { ConsolidationMarks, ConsolidationTables } from "../index/repos/consolidation-records.js";

export type {
  ConsolidationMarks,
  ConsolidationTables,
  DuplicateInfo,
  SupersededInfo,
} from "../index/repos/consolidation-records.js";

/** What consolidation recorded about these chunk hashes (one query per table). */
export function marksFor(store: IndexStore, hashes: readonly string[]): Map<string, ConsolidationMarks> {
  return store.records.marksFor(hashes);
}

/** Reinforcement count of one chunk (0 when none): usable by ranking. */
export function reinforcementOf(store: IndexStore, hash: string): number {
  return store.records.reinforcementOf(hash);
}

/** Replaces what the previous run recorded, in one transaction (a crash keeps the previous state). */
export function writeTables(store: IndexStore, t: ConsolidationTables): void {
  store.records.writeTables(t);
}
