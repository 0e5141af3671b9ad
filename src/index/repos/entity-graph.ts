import type Database from "better-sqlite3";
import { statements } from "../statements.js";

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
export class EntityGraph {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = statements(db, {
      // Counted up to a cap (an entity in every chunk is not read whole); the name of its first rows.
      count: `SELECT count(*) FROM (SELECT 1 FROM chunk_entities WHERE entity = ? LIMIT ?)`,
      name: `SELECT min(name) FROM (SELECT name FROM chunk_entities WHERE entity = ? LIMIT 8)`,
      chunksOf: `SELECT chunk_id FROM chunk_entities WHERE entity = ? ORDER BY chunk_id DESC LIMIT ?`,
      // Names that start with a key and a space: "alice" → "alice chen" (an index range, not a scan).
      longer: `SELECT entity FROM chunk_entities WHERE entity > ? AND entity < ? GROUP BY entity LIMIT ?`,
      cooccurring: `SELECT entity, min(name) AS name, count(*) AS n FROM chunk_entities
        WHERE chunk_id IN (SELECT value FROM json_each(?)) GROUP BY entity ORDER BY n DESC, entity LIMIT ?`,
      chunkCount: `SELECT count(*) FROM chunks`,
      top: `SELECT entity, min(name) AS name, count(*) AS chunks FROM chunk_entities GROUP BY entity
        ORDER BY chunks DESC, entity LIMIT ?`,
    });
  }

  /**
   * How many chunks name each of these keys (only those some chunk names), counted up to `cap` + 1:
   * an entity named in more than `cap` chunks shows `cap + 1`. Two indexed reads per key.
   */
  counts(keys: readonly string[], cap: number): EntityCount[] {
    const out: EntityCount[] = [];
    for (const entity of new Set(keys)) {
      const chunks = this.stmts.count.pluck().get(entity, cap + 1) as number;
      if (chunks > 0) out.push({ entity, name: this.stmts.name.pluck().get(entity) as string, chunks });
    }
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

  chunkCount(): number {
    return this.stmts.chunkCount.pluck().get() as number;
  }

  /** The entities named in the most chunks (every kind: names, identifiers, "the …" phrases). */
  top(n: number): EntityCount[] {
    return this.stmts.top.all(n) as EntityCount[];
  }
}
