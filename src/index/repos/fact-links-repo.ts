import type Database from "better-sqlite3";
import type { SlotEntry } from "../../facts/link.js";
import type { Reading } from "../../facts/mentions.js";
import { statements } from "../db/statements.js";

/** A statement as the linker reads it back. */
export interface LinkStatement {
  id: number;
  at: number | null;
  reading: Reading;
}

/** A slot entry as stored: its values as JSON arrays (parsed only for the slots that link). */
export interface StoredEntry {
  entity: string;
  cls: string;
  statement: number;
  at: number | null;
  news: string;
  olds: string;
}

/** Slot key: entity and class joined by a NUL (neither holds one: both are words of the text). */
export const slotKey = (entity: string, cls: string) => `${entity}\u0000${cls}`;

/** Slots to link from which one ordered scan of every entry is cheaper than a query per slot. */
const SCAN_FROM = 256;

const ids = (list: readonly number[]) => JSON.stringify(list);

/**
 * The link state of the facts tables (migration "incremental fact links"): each statement's slot
 * entries and name-class edges, the learned name classes, and the queue of statements that came or
 * went since the last link (filled by triggers on fact_statements). The linker (facts/relink.ts)
 * reads and writes only the slots the queue touches.
 */
export class FactLinksRepo {
  private readonly stmts;

  constructor(private readonly db: Database.Database) {
    this.stmts = statements(db, {
      queued: `SELECT statement_id FROM fact_relink ORDER BY statement_id`,
      clearQueue: `DELETE FROM fact_relink`,
      requeueAll: `INSERT OR IGNORE INTO fact_relink (statement_id) SELECT id FROM fact_statements`,
      statementsIn: `SELECT id, at, reading FROM fact_statements WHERE id IN (SELECT value FROM json_each(?))`,
      entriesOf: `SELECT entity, cls FROM fact_entries WHERE statement_id IN (SELECT value FROM json_each(?))`,
      dropEntries: `DELETE FROM fact_entries WHERE statement_id IN (SELECT value FROM json_each(?))`,
      insertEntry: `INSERT OR REPLACE INTO fact_entries (entity, cls, statement_id, news, olds) VALUES (?, ?, ?, ?, ?)`,
      withClasses: `SELECT DISTINCT statement_id FROM fact_entries WHERE cls IN (SELECT value FROM json_each(?))`,
      dropEdges: `DELETE FROM fact_class_edges WHERE statement_id IN (SELECT value FROM json_each(?))`,
      insertEdge: `INSERT INTO fact_class_edges (statement_id, a, b) VALUES (?, ?, ?)`,
      edges: `SELECT a, b FROM fact_class_edges`,
      edgesOf: `SELECT DISTINCT a, b FROM fact_class_edges WHERE statement_id IN (SELECT value FROM json_each(?))`,
      hasEdge: `SELECT EXISTS (SELECT 1 FROM fact_class_edges WHERE a = ? AND b = ?)`,
      classes: `SELECT name, cls FROM fact_name_classes`,
      classOf: `SELECT cls FROM fact_name_classes WHERE name = ?`,
      setClass: `INSERT OR REPLACE INTO fact_name_classes (name, cls) VALUES (?, ?)`,
      dropClass: `DELETE FROM fact_name_classes WHERE name = ?`,
      chain: `SELECT e.statement_id AS statement, e.news, e.olds, t.at FROM fact_entries e
        JOIN fact_statements t ON t.id = e.statement_id WHERE e.entity = ? AND e.cls = ?`,
      allChains: `SELECT e.entity, e.cls, e.statement_id, e.news, e.olds, t.at FROM fact_entries e
        JOIN fact_statements t ON t.id = e.statement_id ORDER BY e.entity, e.cls`,
      slotRows: `SELECT statement_id AS statement, news, olds, superseded_by AS supersededBy FROM fact_slots
        WHERE entity = ? AND cls = ?`,
      deleteSlotRow: `DELETE FROM fact_slots WHERE entity = ? AND cls = ? AND statement_id = ?`,
      insertSlotRow: `INSERT OR REPLACE INTO fact_slots (entity, cls, statement_id, news, olds, superseded_by) VALUES (?, ?, ?, ?, ?, ?)`,
    });
  }

  /** Runs a link pass as one transaction: all of it or none is stored. */
  atomically<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /** The statements that came or went since the last link. */
  queued(): number[] {
    return this.stmts.queued.pluck().all() as number[];
  }

  clearQueue(): void {
    this.stmts.clearQueue.run();
  }

  /** Forgets every link and queues every statement: the next link is a build from scratch. */
  requeueAll(): void {
    this.atomically(() => {
      for (const sql of [
        `DELETE FROM fact_entries`,
        `DELETE FROM fact_class_edges`,
        `DELETE FROM fact_name_classes`,
        `DELETE FROM fact_slots`,
      ])
        this.db.prepare(sql).run();
      this.stmts.requeueAll.run();
    });
  }

  /** Those of these statements that exist, with their time and reading. */
  statementsIn(list: readonly number[]): LinkStatement[] {
    if (list.length === 0) return [];
    return (this.stmts.statementsIn.all(ids(list)) as Array<{ id: number; at: number | null; reading: string }>).map(
      (r) => ({ id: r.id, at: r.at, reading: JSON.parse(r.reading) as Reading }),
    );
  }

  /** The slot keys these statements' stored entries are in. */
  slotsOf(list: readonly number[]): string[] {
    if (list.length === 0) return [];
    return (this.stmts.entriesOf.all(ids(list)) as Array<{ entity: string; cls: string }>).map((r) =>
      slotKey(r.entity, r.cls),
    );
  }

  /** The statements with an entry of one of these classes. */
  withClasses(classes: readonly string[]): number[] {
    if (classes.length === 0) return [];
    return this.stmts.withClasses.pluck().all(JSON.stringify(classes)) as number[];
  }

  /** Drops these statements' entries and class edges. */
  drop(list: readonly number[]): void {
    if (list.length === 0) return;
    this.stmts.dropEntries.run(ids(list));
    this.stmts.dropEdges.run(ids(list));
  }

  /** Stores entries (in key order when many: a B-tree appended to, not split at random). */
  addEntries(entries: ReadonlyArray<Omit<StoredEntry, "at">>): void {
    for (const e of entries) this.stmts.insertEntry.run(e.entity, e.cls, e.statement, e.news, e.olds);
  }

  addEdges(statement: number, edges: ReadonlyArray<readonly [string, string]>): void {
    for (const [a, b] of edges) this.stmts.insertEdge.run(statement, a, b);
  }

  /** The distinct name-class edges of these statements. */
  edgesOf(list: readonly number[]): Array<[string, string]> {
    if (list.length === 0) return [];
    return this.stmts.edgesOf.raw().all(ids(list)) as Array<[string, string]>;
  }

  /** Whether some statement has this name-class edge. */
  hasEdge(a: string, b: string): boolean {
    return (this.stmts.hasEdge.pluck().get(a, b) as number) === 1;
  }

  /** A name's stored class (undefined: a class of its own). */
  classOf(name: string): string | undefined {
    return this.stmts.classOf.pluck().get(name) as string | undefined;
  }

  edges(): Array<[string, string]> {
    return (this.stmts.edges.raw().all() as Array<[string, string]>).map(([a, b]) => [a, b]);
  }

  /** The stored classes of the names in a class with others (name → class). */
  classes(): Map<string, string> {
    return new Map(this.stmts.classes.raw().all() as Array<[string, string]>);
  }

  /** Stores a name's class (null: a class of its own, not stored). */
  setClass(name: string, cls: string | null): void {
    if (cls === null) this.stmts.dropClass.run(name);
    else this.stmts.setClass.run(name, cls);
  }

  /**
   * Every entry of these slots, with its statement's time, slot by slot: a query per slot for a
   * few, one ordered scan of all entries for many (a first link reads every slot).
   */
  *chains(keys: ReadonlySet<string>): Generator<[string, StoredEntry[]]> {
    type Raw = [string, string, number, string, string, number | null];
    const entry = ([entity, cls, statement, news, olds, at]: Raw): StoredEntry => ({
      entity,
      cls,
      statement,
      at,
      news,
      olds,
    });
    if (keys.size <= SCAN_FROM) {
      for (const key of keys) {
        const [entity, cls] = key.split("\u0000") as [string, string];
        const rows = this.stmts.chain.raw().all(entity, cls) as Array<[number, string, string, number | null]>;
        yield [key, rows.map(([st, news, olds, at]) => entry([entity, cls, st, news, olds, at]))];
      }
      return;
    }
    const rows = this.stmts.allChains.raw().all() as Raw[];
    const left = new Set(keys);
    for (let i = 0; i < rows.length;) {
      const [entity, cls] = rows[i]!;
      let j = i + 1;
      while (j < rows.length && rows[j]![0] === entity && rows[j]![1] === cls) j++;
      const key = slotKey(entity, cls);
      if (left.delete(key)) yield [key, rows.slice(i, j).map(entry)];
      i = j;
    }
    // Slots every statement left: their stored rows go.
    for (const key of left) yield [key, []];
  }

  /**
   * Makes one slot's stored rows these, writing only the rows that changed; returns how many rows
   * were written or deleted.
   */
  setSlot(key: string, rows: ReadonlyArray<SlotEntry & { supersededBy: number | null }>): number {
    const [entity, cls] = key.split("\u0000") as [string, string];
    const have = new Map<number, string>();
    for (const r of this.stmts.slotRows.all(entity, cls) as Array<{
      statement: number;
      news: string;
      olds: string;
      supersededBy: number | null;
    }>)
      have.set(r.statement, `${r.news}\u0000${r.olds}\u0000${r.supersededBy ?? ""}`);
    let written = 0;
    for (const r of rows) {
      const news = JSON.stringify(r.news);
      const olds = JSON.stringify(r.olds);
      const was = have.get(r.statement);
      have.delete(r.statement);
      if (was === `${news}\u0000${olds}\u0000${r.supersededBy ?? ""}`) continue;
      this.stmts.insertSlotRow.run(entity, cls, r.statement, news, olds, r.supersededBy);
      written++;
    }
    for (const statement of have.keys()) {
      this.stmts.deleteSlotRow.run(entity, cls, statement);
      written++;
    }
    return written;
  }
}
