import type { IndexStore } from "../index/store.js";
import { entitiesOf, statementsOf } from "./extract.js";
import { nameClasses, slotEntries, standings, type ChainEntry, type StatementIn } from "./link.js";

/** Chunks read per transaction. */
const BATCH = 256;

export interface FactsReport {
  /** Chunks read for statements and entities. */
  chunks: number;
  /** Statements in the index after the pass. */
  statements: number;
  /** Whether the slots were linked again. */
  linked: boolean;
  ms: number;
}

/**
 * The facts pass of a sync (after the chunks are written): reads the chunks not read yet for
 * their statements and entities, then — when any statement came or went — links every slot again
 * in time order, so a newer statement supersedes the older one from the moment it is indexed and
 * a statement edited away gives its place back. Deterministic; no model.
 */
export function syncFacts(store: IndexStore, opts: { clock?: () => number; removed?: boolean } = {}): FactsReport {
  const t0 = performance.now();
  const repo = store.facts;
  const clock = opts.clock ?? Date.now;
  // Curated lines present at the first pass are older than any dated statement (extract.ts).
  const initial = !repo.started();
  const seenAt = initial ? 0 : clock();
  let chunks = 0;
  for (;;) {
    const batch = repo.pending(BATCH);
    if (batch.length === 0) break;
    const time = { curatedSeen: (path: string, text: string) => repo.firstSeen(path, text, seenAt) };
    repo.write(batch.map((c) => ({ chunkId: c.id, found: statementsOf(c, time), entities: entitiesOf(c) })));
    chunks += batch.length;
  }
  const linked = chunks > 0 || opts.removed === true;
  if (linked) linkSlots(store);
  return { chunks, statements: repo.statementCount(), linked, ms: performance.now() - t0 };
}

/** Links every slot's statements in time order and stores who superseded whom as of now. */
export function linkSlots(store: IndexStore): void {
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
    const by = new Map(standings(chain).map((s) => [s.statement, s.supersededBy?.statement ?? null]));
    for (const e of chain) rows.push({ ...e, supersededBy: by.get(e.statement) ?? null });
  }
  store.facts.replaceSlots(rows);
}
