import type Database from "better-sqlite3";
import type { Reading } from "../../facts/mentions.js";
import type { SlotEntry } from "../../facts/link.js";
import { FACT_TRIGGERS } from "../db/migrations.js";
import { statements } from "../db/statements.js";
import { FactLinksRepo } from "./fact-links-repo.js";

/** A chunk the facts pass has not read yet. */
export interface PendingChunk {
  id: number;
  path: string;
  cls: string;
  date: string | null;
  startLine: number;
  text: string;
  ts: number | null;
}

/** A slot row with where its statement is. */
export interface SlotRow extends SlotEntry {
  at: number | null;
  path: string;
  line: number;
  text: string;
  hash: string;
  source: "curated" | "daily" | "note" | "transcript";
  date: string | null;
  supersededBy: number | null;
}

/** A statement's line, time (ms; null: an undated curated line) and text. */
export interface StatementAt {
  line: number;
  at: number | null;
  text: string;
}

export interface NewStatement {
  chunkId: number;
  line: number;
  at: number | null;
  text: string;
  reading: Reading;
}

/**
 * The reads of which statements a file's lines supersede or are superseded by (`search --explain`).
 * Each starts from the file's path and reaches the slots through indexes: a slot row is found by the
 * statement it holds, and the rows one statement superseded through their shared slot's partial
 * index (a scan of every slot for `superseded_by` took ~1 s at 1M chunks, for each result shown).
 */
export const LINKS_SQL = {
  supersededIn: `SELECT t.line, s.entity, bf.path AS byPath, bt.line AS byLine, bt.at AS byAt
        FROM files f JOIN chunks c ON c.file_id = f.id JOIN fact_statements t ON t.chunk_id = c.id
        JOIN fact_slots s ON s.statement_id = t.id JOIN fact_statements bt ON bt.id = s.superseded_by
        JOIN chunks bc ON bc.id = bt.chunk_id JOIN files bf ON bf.id = bc.file_id
        WHERE f.path = ? AND t.line BETWEEN ? AND ? LIMIT 24`,
  // A statement supersedes only rows of its own slots, so its slot rows (n) lead to theirs.
  supersedesIn: `SELECT bt.line, s.entity, f.path AS oldPath, t.line AS oldLine
        FROM files bf JOIN chunks bc ON bc.file_id = bf.id JOIN fact_statements bt ON bt.chunk_id = bc.id
        JOIN fact_slots n ON n.statement_id = bt.id
        JOIN fact_slots s INDEXED BY fact_slots_changed ON s.entity = n.entity AND s.cls = n.cls AND s.superseded_by = bt.id
        JOIN fact_statements t ON t.id = s.statement_id
        JOIN chunks c ON c.id = t.chunk_id JOIN files f ON f.id = c.file_id
        WHERE bf.path = ? AND bt.line BETWEEN ? AND ? LIMIT 24`,
} as const;

/**
 * The facts tables (migration "facts over time and entities"): statements with their time, the
 * entities each chunk names, and the (entity, class) slots linking statements in time order.
 * Everything here is derived from the chunks and goes with them (ON DELETE CASCADE).
 */
/**
 * Up to n chunks not read by the facts pass, after an id (a cursor): from the queue of the chunks
 * written and not read yet (fact_chunks_todo, filled by a trigger, see migrations.ts), so the cost
 * follows what is queued, not the index's size.
 */
export const PENDING_SQL = `SELECT c.id, f.path, f.class AS cls, f.date, c.start_line AS startLine, c.text, c.ts
  FROM fact_chunks_todo t JOIN chunks c ON c.id = t.chunk_id JOIN files f ON f.id = c.file_id
  WHERE t.chunk_id > ? AND NOT EXISTS (SELECT 1 FROM fact_chunks_done d WHERE d.chunk_id = c.id)
  ORDER BY t.chunk_id LIMIT ?`;

export class FactsRepo {
  private readonly stmts;
  /** The link state (each statement's slot entries, the learned classes, the relink queue). */
  readonly links: FactLinksRepo;

  constructor(private readonly db: Database.Database) {
    this.links = new FactLinksRepo(db);
    this.stmts = statements(db, {
      pending: PENDING_SQL,
      done: `INSERT OR IGNORE INTO fact_chunks_done (chunk_id) VALUES (?)`,
      dequeue: `DELETE FROM fact_chunks_todo WHERE chunk_id = ?`,
      insertStatement: `INSERT INTO fact_statements (chunk_id, line, at, text, reading) VALUES (?, ?, ?, ?, ?)`,
      insertEntity: `INSERT OR IGNORE INTO chunk_entities (chunk_id, entity, name) VALUES (?, ?, ?)`,
      // The slots of these entities in which something changed (a partial index holds the superseded rows).
      slotsOf: `WITH keys AS (SELECT DISTINCT value AS entity FROM json_each(?)),
        wanted AS (SELECT DISTINCT s.entity, s.cls FROM keys k JOIN fact_slots s INDEXED BY fact_slots_changed
          ON s.entity = k.entity WHERE s.superseded_by IS NOT NULL)
        SELECT s.entity, s.cls, s.statement_id AS statement, s.news, s.olds, s.superseded_by AS supersededBy,
          t.at, t.line, t.text, f.path, f.class AS source, f.date, lower(hex(c.hash)) AS hash
        FROM wanted w JOIN fact_slots s ON s.entity = w.entity AND s.cls = w.cls
        JOIN fact_statements t ON t.id = s.statement_id JOIN chunks c ON c.id = t.chunk_id
        JOIN files f ON f.id = c.file_id`,
      slotEntities: `SELECT value FROM json_each(?) WHERE EXISTS (SELECT 1 FROM fact_slots s WHERE s.entity = value)
        GROUP BY value`,
      knownEntities: `SELECT entity FROM chunk_entities WHERE entity IN (SELECT value FROM json_each(?)) GROUP BY entity`,
      chunksOf: `SELECT chunk_id FROM chunk_entities WHERE entity = ? LIMIT ?`,
      entitiesOfChunks: `SELECT chunk_id AS chunkId, entity, name FROM chunk_entities WHERE chunk_id IN (SELECT value FROM json_each(?))`,
      ...LINKS_SQL,
      entitiesAt: `SELECT e.name FROM files f JOIN chunks c ON c.file_id = f.id JOIN chunk_entities e ON e.chunk_id = c.id
        WHERE f.path = ? AND c.start_line = ? LIMIT 24`,
      seen: `SELECT seen_at FROM fact_seen WHERE path = ? AND text = ?`,
      markSeen: `INSERT OR IGNORE INTO fact_seen (path, text, seen_at) VALUES (?, ?, ?)`,
      anySeen: `SELECT EXISTS (SELECT 1 FROM fact_chunks_done)`,
      statementCount: `SELECT count(*) FROM fact_statements`,
      statementsBeyond: `SELECT EXISTS (SELECT 1 FROM fact_statements LIMIT 1 OFFSET ?)`,
      statementsIn: `SELECT t.line, t.at, t.text FROM files f JOIN chunks c ON c.file_id = f.id
        JOIN fact_statements t ON t.chunk_id = c.id WHERE f.path = ? AND t.line BETWEEN ? AND ? LIMIT 64`,
    });
  }

  /** Up to n chunks not read by the facts pass yet, after a chunk id (a cursor). */
  pending(afterId: number, n: number): PendingChunk[] {
    return this.stmts.pending.all(afterId, n) as PendingChunk[];
  }

  /**
   * Forgets what the chunks were read to say (statements, entities, and all the links derived from
   * them; not when curated lines were first seen), so the next pass reads every chunk again: after
   * the reader's rules changed. The tables are emptied whole (SQLite's truncate) with their triggers
   * dropped and foreign keys off meanwhile — every parent and child row goes, so none is left
   * dangling: deleted row by row, the triggers queued every statement for a relink and counted every
   * mention down, which held the daemon ~80 s at a million chunks. (Inside a transaction the pragma
   * is a no-op: the same rows go, row by row.)
   */
  forgetReadings(): void {
    this.db.pragma("foreign_keys = OFF");
    try {
      this.db.transaction(() => {
        for (const name of Object.keys(FACT_TRIGGERS)) this.db.exec(`DROP TRIGGER IF EXISTS ${name}`);
        this.db.exec(`DELETE FROM fact_slots; DELETE FROM fact_statements; DELETE FROM chunk_entities;
          DELETE FROM entity_counts; DELETE FROM fact_chunks_done; DELETE FROM fact_entries;
          DELETE FROM fact_class_edges; DELETE FROM fact_name_classes; DELETE FROM fact_relink;
          INSERT OR IGNORE INTO fact_chunks_todo (chunk_id) SELECT id FROM chunks`);
        for (const sql of Object.values(FACT_TRIGGERS)) this.db.exec(sql);
      })();
    } finally {
      this.db.pragma("foreign_keys = ON");
    }
  }

  /** Whether the facts pass ever ran on this index (an undated curated line seen now is an edit). */
  started(): boolean {
    return (this.stmts.anySeen.pluck().get() as number) === 1;
  }

  /** When a curated line was first seen (ms), recording `now` (or 0: before everything) the first time. */
  firstSeen(path: string, text: string, now: number): number {
    const got = this.stmts.seen.pluck().get(path, text) as number | undefined;
    if (got !== undefined) return got;
    this.stmts.markSeen.run(path, text, now);
    return now;
  }

  /**
   * Reads chunks and records what they say — their statements and entities — in one transaction
   * (the first-seen times `read` records go in it too); the chunks count as read.
   */
  readInto(
    chunks: readonly PendingChunk[],
    read: (c: PendingChunk) => { found: readonly NewStatement[]; entities: ReadonlyMap<string, string> },
  ): void {
    this.db.transaction(() => {
      for (const c of chunks) {
        const { found, entities } = read(c);
        for (const s of found)
          this.stmts.insertStatement.run(s.chunkId, s.line, s.at, s.text, JSON.stringify(s.reading));
        for (const [key, name] of entities) this.stmts.insertEntity.run(c.id, key, name);
        this.stmts.done.run(c.id);
        this.stmts.dequeue.run(c.id);
      }
    })();
  }

  /**
   * The slot rows of these entities a recall needs, with where each statement is: the slots in which
   * a statement was superseded. A slot where nothing ever changed (restatements of one value) is not
   * read: a prompt of everyday words reads tens of rows, not every restatement of them (issue #29).
   */
  slotsOf(entities: readonly string[]): SlotRow[] {
    if (entities.length === 0) return [];
    return (
      this.stmts.slotsOf.all(JSON.stringify(entities)) as Array<
        Omit<SlotRow, "news" | "olds"> & { news: string; olds: string }
      >
    ).map((r) => ({ ...r, news: JSON.parse(r.news) as string[], olds: JSON.parse(r.olds) as string[] }));
  }

  /** Which of these keys are entities of some linked slot (explain's entities). */
  slotEntities(keys: readonly string[]): string[] {
    if (keys.length === 0) return [];
    return this.stmts.slotEntities.pluck().all(JSON.stringify(keys)) as string[];
  }

  /** Which of these keys are entities some chunk names. */
  known(keys: readonly string[]): string[] {
    if (keys.length === 0) return [];
    return this.stmts.knownEntities.pluck().all(JSON.stringify(keys)) as string[];
  }

  /** The entities each chunk names. */
  entitiesOf(chunkIds: readonly number[]): Map<number, string[]> {
    const out = new Map<number, string[]>();
    if (chunkIds.length === 0) return out;
    for (const r of this.stmts.entitiesOfChunks.all(JSON.stringify(chunkIds)) as Array<{
      chunkId: number;
      name: string;
    }>) {
      let l = out.get(r.chunkId);
      if (!l) out.set(r.chunkId, (l = []));
      l.push(r.name);
    }
    return out;
  }

  /**
   * Who superseded whom among the statements of a file's lines (as linked at index time, as of now):
   * "line 3 (jonas) superseded by memory/2026-10-18.md:5 on 2026-10-18", "line 5 (jonas) supersedes MEMORY.md:3".
   */
  linksAt(path: string, from: number, to: number): string[] {
    const out = new Set<string>();
    for (const r of this.stmts.supersededIn.all(path, from, to) as Array<{
      line: number;
      entity: string;
      byPath: string;
      byLine: number;
      byAt: number | null;
    }>) {
      const on = r.byAt === null ? "" : ` on ${new Date(r.byAt).toISOString().slice(0, 10)}`;
      out.add(`line ${r.line} (${r.entity}) superseded by ${r.byPath}:${r.byLine}${on}`);
    }
    for (const r of this.stmts.supersedesIn.all(path, from, to) as Array<{
      line: number;
      entity: string;
      oldPath: string;
      oldLine: number;
    }>)
      out.add(`line ${r.line} (${r.entity}) supersedes ${r.oldPath}:${r.oldLine}`);
    return [...out];
  }

  /** The entities the chunk of a file starting at a line names. */
  entitiesAt(path: string, startLine: number): string[] {
    return this.stmts.entitiesAt.pluck().all(path, startLine) as string[];
  }

  /** The statements among a file's lines (at most 64): where each is, when it was said, its text. */
  statementsIn(path: string, from: number, to: number): StatementAt[] {
    return this.stmts.statementsIn.all(path, from, to) as StatementAt[];
  }

  statementCount(): number {
    return this.stmts.statementCount.pluck().get() as number;
  }

  /** Whether the index holds more than n statements (reads n + 1 at most: count(*) reads them all). */
  statementsBeyond(n: number): boolean {
    return (this.stmts.statementsBeyond.pluck().get(n) as number) === 1;
  }
}
