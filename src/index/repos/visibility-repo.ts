import type Database from "better-sqlite3";
import { chainedHash } from "../../util/chained-hash.js";
import { termPhrase } from "../keyword/fts-text.js";
import { statements } from "../db/statements.js";

/** A file's lines [from, to]. */
export interface Span {
  path: string;
  from: number;
  to: number;
}

/** Matches counted per word for a scope's df; past this the count is the cap (a common word either way). */
const SCOPED_DF_CAP = 20_000;

/**
 * Who may see each chunk (the `visibility` column, visibility/visibility.ts): the lookups a read in
 * a narrower scope than private needs, and the statistics it may see (chunks and document
 * frequencies over the memories visible to it only, so a group's explain and relevance decision
 * say nothing about what it may not see).
 */
export class VisibilityRepo {
  private readonly stmts;

  /**
   * `inMemory`: the same answer from the chunk metadata held in memory (chunk-meta.ts), or null when
   * it is not loaded; then the statement reads it.
   */
  constructor(
    private readonly db: Database.Database,
    private readonly inMemory: (spans: ReadonlyArray<Span>) => string[][] | null = () => null,
  ) {
    this.stmts = statements(db, {
      curatedWithHash: `SELECT 1 FROM files WHERE class = 'curated' AND sha256 = ? LIMIT 1`,
      ofIds: `SELECT id, visibility FROM chunks WHERE id IN (SELECT value FROM json_each(?))`,
      // Per span ([path, from, to]), the visibilities of the file's chunks overlapping its lines, in chunk order.
      ofSpans: `SELECT j.key AS i, c.visibility AS v FROM json_each(?) j JOIN files f ON f.path = j.value ->> 0
        JOIN chunks c ON c.file_id = f.id AND c.start_line <= j.value ->> 2 AND c.end_line >= j.value ->> 1
        ORDER BY j.key, c.seq`,
    });
  }

  /**
   * Each id's visibility (ids not in the index are left out). One statement for any number of ids
   * (a JSON array), prepared once: search and recall ask at every request.
   */
  of(ids: readonly number[]): Map<number, string> {
    const out = new Map<number, string>();
    if (ids.length === 0) return out;
    for (const [id, vis] of this.stmts.ofIds.raw().all(JSON.stringify(ids)) as [number, string][]) out.set(id, vis);
    return out;
  }

  /**
   * For each span (a file's lines [from, to]), the visibilities of the chunks overlapping it, in the
   * file's chunk order: from memory once the chunk metadata is loaded (the daemon's audit asks at
   * every answer), else one read for all.
   */
  ofSpans(spans: ReadonlyArray<Span>): string[][] {
    const out = spans.map((): string[] => []);
    if (spans.length === 0) return out;
    const held = this.inMemory(spans);
    if (held) return held;
    const rows = this.stmts.ofSpans.all(JSON.stringify(spans.map((s) => [s.path, s.from, s.to]))) as Array<{
      i: number;
      v: string;
    }>;
    for (const r of rows) out[r.i]!.push(r.v);
    return out;
  }

  /** Whether a curated file of the index has exactly this content (a copy of MEMORY.md is as private). */
  isCuratedContent(buf: Uint8Array): boolean {
    return this.isCuratedHash(chainedHash(buf).hash);
  }

  /** The same, for content whose chained hash is known (a sync has just computed it). */
  isCuratedHash(hash: string): boolean {
    return this.stmts.curatedWithHash.get(hash) !== undefined;
  }

  /** Chunks with one of these visibilities. */
  count(visible: readonly string[]): number {
    if (visible.length === 0) return 0;
    return this.db
      .prepare(`SELECT count(*) FROM chunks WHERE visibility IN (${visible.map(() => "?").join(",")})`)
      .pluck()
      .get(...visible) as number;
  }

  /** Chunks holding the word (as FTS5 matches it) among those with these visibilities (capped). */
  df(word: string, visible: readonly string[]): number {
    if (visible.length === 0) return 0;
    try {
      return this.db
        .prepare(
          `SELECT count(*) FROM (SELECT 1 FROM chunks_fts f JOIN chunks c ON c.id = f.rowid
             WHERE chunks_fts MATCH ? AND c.visibility IN (${visible.map(() => "?").join(",")}) LIMIT ${SCOPED_DF_CAP})`,
        )
        .pluck()
        .get(termPhrase(word), ...visible) as number;
    } catch {
      return 0; // a word FTS5 cannot match
    }
  }
}
