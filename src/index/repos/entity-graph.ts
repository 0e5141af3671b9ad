import type Database from "better-sqlite3";
import { dbGeneration } from "../db/db-generation.js";
import { statements } from "../db/statements.js";
import { WordCase } from "./word-case.js";

/** An entity as the index holds it: its key, a name as written, and how many chunks name it. */
export interface EntityCount {
  entity: string;
  name: string;
  chunks: number;
}

/**
 * Reads of the entity graph (the `chunk_entities` table the facts pass fills, migration "facts over
 * time and entities"): which chunks name an entity, which entities a set of chunks names, and the
 * longer names an entity is the start of ("alice" → "alice chen": its aliases). Every read is bounded.
 */
/**
 * A count of the top entities that took this long, on an index where the first of them is named in
 * this many chunks (a large one: never a small test index, however loaded the machine) …
 */
const TOP_SLOW_MS = 50;
const TOP_LARGE_CHUNKS = 1000;
/** … is reused, though the index changed since, for this long (they hardly move between two writes). */
const TOP_STALE_MS = 10 * 60_000;

/** Each key's count (entity_counts, kept by triggers), shown up to a cap (`?` 1); the name of its first rows. Keys: `?` 2, JSON. */
export const COUNTS_SQL = `SELECT j.value AS entity, min(entity_counts.chunks, ?) AS chunks,
    (SELECT min(name) FROM (SELECT name FROM chunk_entities e WHERE e.entity = j.value LIMIT 8)) AS name
  FROM json_each(?) j JOIN entity_counts ON entity_counts.entity = j.value`;

export class EntityGraph {
  private readonly stmts;
  private readonly generation: () => string;
  private readonly wordCase: WordCase;
  /** The index's chunk count, kept until the chunks change (`changed`). */
  private count: number | undefined;
  private topCache?: { generation: string; n: number; at: number; large: boolean; rows: EntityCount[] };

  constructor(db: Database.Database) {
    this.generation = dbGeneration(db);
    this.wordCase = new WordCase(db);
    this.stmts = statements(db, {
      counts: COUNTS_SQL,
      // The keys some chunk names (one index probe each).
      known: `SELECT j.value FROM json_each(?) j WHERE EXISTS (SELECT 1 FROM chunk_entities e WHERE e.entity = j.value)`,
      // Per key, up to 2 longer names ("alice" → "alice chen"), joined by NUL.
      longerMany: `SELECT j.value AS key, (SELECT group_concat(entity, char(0)) FROM (SELECT DISTINCT entity FROM chunk_entities e
          WHERE e.entity > j.value || ' ' AND e.entity < j.value || '!' LIMIT 2)) AS longer FROM json_each(?) j`,
      chunksOf: `SELECT chunk_id FROM chunk_entities WHERE entity = ? ORDER BY chunk_id DESC LIMIT ?`,
      // Names that start with a key and a space: "alice" → "alice chen" (an index range, not a scan).
      longer: `SELECT entity FROM chunk_entities WHERE entity > ? AND entity < ? GROUP BY entity LIMIT ?`,
      cooccurring: `SELECT entity, min(name) AS name, count(*) AS n FROM chunk_entities
        WHERE chunk_id IN (SELECT value FROM json_each(?)) GROUP BY entity ORDER BY n DESC, entity LIMIT ?`,
      chunkCount: `SELECT count(*) FROM chunks`,
      // The counts read from entity_counts (one row an entity), the names looked up for the top n only.
      top: `WITH t AS (SELECT entity, chunks FROM entity_counts ORDER BY chunks DESC, entity LIMIT ?)
        SELECT t.entity, (SELECT min(name) FROM chunk_entities c WHERE c.entity = t.entity) AS name, t.chunks
        FROM t ORDER BY t.chunks DESC, t.entity`,
    });
  }

  /**
   * How many chunks name each of these keys (only those some chunk names), shown up to `cap` + 1:
   * an entity named in more than `cap` chunks shows `cap + 1`. Two indexed reads per key, whatever
   * the count (entity_counts).
   */
  counts(keys: readonly string[], cap: number): EntityCount[] {
    if (keys.length === 0) return [];
    return (this.stmts.counts.all(cap + 1, JSON.stringify([...new Set(keys)])) as EntityCount[]).filter(
      (e) => e.chunks > 0,
    );
  }

  /** The keys some chunk names (an index probe each, nothing counted). */
  known(keys: readonly string[]): string[] {
    if (keys.length === 0) return [];
    return this.stmts.known.pluck().all(JSON.stringify([...new Set(keys)])) as string[];
  }

  /** For each key, its longer names when there is exactly one ("alice" → "alice chen"): one read for all keys. */
  onlyLongerNames(keys: readonly string[]): Map<string, string> {
    const out = new Map<string, string>();
    if (keys.length === 0) return out;
    for (const r of this.stmts.longerMany.all(JSON.stringify([...new Set(keys)])) as Array<{
      key: string;
      longer: string | null;
    }>)
      if (r.longer !== null && !r.longer.includes("\u0000")) out.set(r.key, r.longer);
    return out;
  }

  /** Up to n chunks naming an entity, newest first. */
  chunksOf(entity: string, n: number): number[] {
    return this.stmts.chunksOf.pluck().all(entity, n) as number[];
  }

  /** Up to n entities whose key is this key and more words ("alice" → "alice chen"). */
  longerNames(key: string, n: number): string[] {
    return this.stmts.longer.pluck().all(`${key} `, `${key}!`, n) as string[];
  }

  /** The entities these chunks name, by how many of them name each (at most n). */
  cooccurring(chunkIds: readonly number[], n: number): Array<{ entity: string; name: string; n: number }> {
    if (chunkIds.length === 0) return [];
    return this.stmts.cooccurring.all(JSON.stringify(chunkIds), n) as Array<{
      entity: string;
      name: string;
      n: number;
    }>;
  }

  /** The index's chunk count (kept until the chunks change: `changed`). */
  chunkCount(): number {
    return (this.count ??= this.stmts.chunkCount.pluck().get() as number);
  }

  /**
   * Whether an entity (its key) is a one-word "name" the workspace writes mostly in lowercase — a
   * sentence-opening common word, not an entity (word-case.ts). Kept until the chunks change.
   */
  isWord(entity: string): boolean {
    return this.wordCase.isWord(entity);
  }

  /** Whether a one-word entity that is also a common word ("Grace") is written as a name here (word-case.ts). */
  isWrittenAsName(entity: string): boolean {
    return this.wordCase.isWrittenAsName(entity);
  }

  /** The index's chunks changed (a file written, a rollback, another connection's commit): the kept counts and verdicts go. */
  changed(): void {
    this.count = undefined;
    this.wordCase.changed();
  }

  /** The entities named in the most chunks (every kind: names, identifiers, "the …" phrases). */
  top(n: number): EntityCount[] {
    // Kept until the index changes — and, when counting was slow (a large index), for a while after:
    // `cortex.status` (the console's overview, `cortexd status`) asks at every call.
    const generation = this.generation();
    const c = this.topCache;
    const now = Date.now();
    if (c && c.n === n && (c.generation === generation || (c.large && now - c.at < TOP_STALE_MS))) return c.rows;
    const t = performance.now();
    const rows = this.stmts.top.all(n) as EntityCount[];
    const large = performance.now() - t >= TOP_SLOW_MS && (rows[0]?.chunks ?? 0) >= TOP_LARGE_CHUNKS;
    this.topCache = { generation, n, at: now, large, rows };
    return rows;
  }
}
