import type { IndexStore } from "../index/repos/store.js";
import { readChunk } from "./extract.js";
import { nameClasses, slotEntries, standings, type ChainEntry, type StatementIn } from "./link.js";

/** A slot with more distinct values than this is not stored (many facts sharing a word). */
export const MAX_SLOT_VALUES = 6;
/** Chunks read per transaction. */
const BATCH = 64;

export interface FactsReport {
  /** Chunks read for statements and entities. */
  chunks: number;
  /** Statements in the index after the pass. */
  statements: number;
  /** Whether the slots were linked again. */
  linked: boolean;
  /** Slot rows written or deleted by the link pass (only the links that changed). */
  slotsWritten: number;
  ms: number;
}

/**
 * The facts pass of a sync (after the chunks are written): reads the chunks not read yet for
 * their statements and entities, then — when any statement came or went — links every slot again
 * in time order, so a newer statement supersedes the older one from the moment it is indexed and
 * a statement edited away gives its place back. Deterministic; no model.
 */
export async function syncFacts(
  store: IndexStore,
  opts: { clock?: () => number; removed?: boolean } = {},
): Promise<FactsReport> {
  const t0 = performance.now();
  const repo = store.facts;
  const clock = opts.clock ?? Date.now;
  // Curated lines present at the first pass are older than any dated statement (extract.ts).
  const initial = !repo.started();
  const seenAt = initial ? 0 : clock();
  let chunks = 0;
  const time = { curatedSeen: (path: string, text: string) => repo.firstSeen(path, text, seenAt) };
  for (let after = 0; ;) {
    const batch = repo.pending(after, BATCH);
    if (batch.length === 0) break;
    repo.readInto(batch, (c) => {
      const read = readChunk(c, time);
      return { found: read.statements, entities: read.entities };
    });
    chunks += batch.length;
    after = batch[batch.length - 1]!.id;
    // A turn of the event loop between batches: a huge file's chunks do not hold pings (issue #34).
    if (batch.length === BATCH) await new Promise<void>((r) => setImmediate(r));
  }
  const linked = chunks > 0 || opts.removed === true;
  const slotsWritten = linked ? linkSlots(store) : 0;
  return { chunks, statements: repo.statementCount(), linked, slotsWritten, ms: performance.now() - t0 };
}

/**
 * Links every slot's statements in time order and stores who superseded whom as of now; writes only
 * the slot rows that changed (returns how many).
 */
export function linkSlots(store: IndexStore): number {
  const all: StatementIn[] = store.facts.allStatements().map((s) => ({ id: s.id, at: s.at, reading: s.reading }));
  const classes = nameClasses(all);
  const chains = new Map<string, ChainEntry[]>();
  for (const s of all)
    for (const e of slotEntries(s, classes)) {
      const key = `${e.entity}\u0000${e.cls}`;
      let c = chains.get(key);
      if (!c) chains.set(key, (c = []));
      c.push({ ...e, at: s.at });
    }
  const rows: Array<ChainEntry & { supersededBy: number | null }> = [];
  for (const chain of chains.values()) {
    // Many values under one word are many facts sharing it, not one that changed (recall-facts.ts).
    // A slot of one statement links nothing (and restates nothing).
    if (chain.length < 2 || new Set(chain.flatMap((e) => e.news)).size > MAX_SLOT_VALUES) continue;
    const by = new Map(standings(chain).map((s) => [s.statement, s.supersededBy?.statement ?? null]));
    for (const e of chain) rows.push({ ...e, supersededBy: by.get(e.statement) ?? null });
  }
  return store.facts.replaceSlots(rows);
}
