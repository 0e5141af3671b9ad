import type Database from "better-sqlite3";
import type { FileClass } from "../../ingest/types.js";
import type { ChunkBody, ChunkRow } from "./chunks-repo.js";
import { CommitWatch } from "../db/db-generation.js";
import { IdSlots } from "./id-slots.js";
import { readInSteps } from "../db/stepped-read.js";
import { ftsTotalsReader } from "../keyword/fts-totals.js";

/** What the ranking stages read of a chunk besides its text: its file, place, date and importance. */
export type ChunkMeta = Omit<ChunkRow, keyof ChunkBody | "vecState"> & {
  /** N of the chunk's `<!-- importance: N -->` (as written, 0–99), or null when it has none. */
  importance: number | null;
};

const IMPORTANCE = /<!--\s*importance:\s*(\d{1,2})\s*-->/i;

/** N of a text's first `<!-- importance: N -->` annotation (as written), or null when it has none. */
export function importanceOf(text: string): number | null {
  const m = IMPORTANCE.exec(text);
  return m ? Number(m[1]) : null;
}

interface FileEntry {
  path: string;
  class: FileClass;
  date: string | null;
  /** Slot of one of the file's chunks (the others follow through `nextInFile`), or -1. */
  first: number;
}

type ChunkTuple = [
  id: number,
  fileId: number,
  seq: number,
  start: number,
  end: number,
  ts: number | null,
  text: string | null,
  visibility: string,
];
type FileTuple = [id: number, path: string, cls: FileClass, date: string | null];
type JoinedTuple = [...ChunkTuple, path: string, cls: FileClass, date: string | null];

/** Lookups served from SQL before the whole table is loaded (unless warmed first). */
const LOOKUPS_BEFORE_LOAD = 2;

// Only texts that can hold an annotation come back (LIKE is case-insensitive for ASCII, as the expression is).
const CHUNK_COLUMNS = `id, file_id, seq, start_line, end_line, ts, CASE WHEN text LIKE '%importance%' THEN text END, visibility`;
const CHUNKS_SQL = `SELECT ${CHUNK_COLUMNS} FROM chunks`;
const FILES_SQL = `SELECT id, path, class, date FROM files`;
/** Slots a table grows by at least. */
const MIN_GROWTH = 1024;
/** Distinct visibilities the table can hold (their codes are 16-bit); past this, spans are read from SQL. */
const MAX_VISIBILITIES = 0xffff;

/**
 * The per-chunk metadata of the whole index in memory (typed arrays, one slot per chunk, and a map of
 * the files), so a search reads no row for the many candidates it only scores: the text is read
 * only for the few that need it. Each chunk's visibility is kept too, for the audit's visibility of
 * a file's lines (visibilitiesOfSpans). Importance annotations are parsed when a chunk is loaded, not per
 * query. Kept in step with the index: this connection's writes mark their files (fileChanged), whose
 * chunks are read again before the next lookup; another connection's commit (PRAGMA data_version)
 * reloads everything. Loaded when the daemon warms it or on the third lookup of a process; before
 * that, lookups read just their ids' rows (a one-shot CLI search does not pay for the whole index).
 *
 * Memory (the daemon holds it for as long as it runs): 35 bytes of typed arrays a chunk, 8–16 bytes
 * of its id's bucket (id-slots.ts), and a small object per file; a file's chunks are a chain through
 * `nextInFile`, not an array per file.
 */
export class ChunkMetaTable {
  private readonly stmts;
  private readonly commits;
  private lookups = 0;
  /** Set while warmInSteps reads the table: lookups read SQL meanwhile, and writes are noted in `dirty`. */
  private warming = false;
  /** Set when a transaction rolled back during warmInSteps: what it noted may be incomplete. */
  private warmSpoiled = false;
  private readonly dirty = new Set<number>();
  private files = new Map<number, FileEntry>();
  /** The file id of each path. */
  private byPath = new Map<string, number>();
  private readonly slotOf = new IdSlots((s) => this.ids[s]!);
  private free: number[] = [];
  private size = 0;
  private ids = new Int32Array(0);
  private fileIds = new Int32Array(0);
  /** The next slot of the same file's chunks, or -1. */
  private nextInFile = new Int32Array(0);
  private seqs = new Int32Array(0);
  private starts = new Int32Array(0);
  private ends = new Int32Array(0);
  /** NaN: no timestamp. */
  private tss = new Float64Array(0);
  /** −1: no importance annotation. */
  private importances = new Int8Array(0);
  /** Each chunk's visibility, as its index in `visibilityNames`. */
  private visibilityCodes = new Uint16Array(0);
  private visibilityNames: string[] = [];
  private readonly visibilityCode = new Map<string, number>();

  /** The chunks in the index, from FTS5's totals (exact, no scan: count(*) reads every row). */
  private readonly chunkCount: () => number;

  constructor(private readonly db: Database.Database) {
    this.commits = new CommitWatch(db);
    let totals: (() => { rows: number }) | undefined;
    this.chunkCount = () => (totals ??= ftsTotalsReader(db, "chunks_fts"))().rows;
    this.stmts = {
      allChunks: db.prepare(CHUNKS_SQL).raw(),
      allFiles: db.prepare(FILES_SQL).raw(),
      fileChunks: db.prepare(`SELECT ${CHUNK_COLUMNS} FROM chunks WHERE file_id = ?`).raw(),
      file: db.prepare(`SELECT id, path, class, date FROM files WHERE id = ?`).raw(),
      byIds: db
        .prepare(
          `SELECT c.id, c.file_id, c.seq, c.start_line, c.end_line, c.ts, CASE WHEN c.text LIKE '%importance%' THEN c.text END,
             c.visibility, f.path, f.class, f.date FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN (SELECT value FROM json_each(?))`,
        )
        .raw(),
    };
  }

  /** Called by the store inside a transaction that writes a file's row or chunks. */
  fileChanged(fileId: number): void {
    if (this.commits.loaded || this.warming) this.dirty.add(fileId);
  }

  /** A transaction failed (index/db/copies.ts): rows read inside it may be gone, so all are read again. */
  rolledBack(): void {
    this.commits.forget();
    this.dirty.clear();
    if (this.warming) this.warmSpoiled = true;
  }

  /** Loads the whole table now, in one go. */
  warm(): void {
    if (!this.warming) this.current();
  }

  /**
   * Loads the whole table without holding the event loop (the daemon, after its startup sync: a
   * million chunks take seconds to read): read from one snapshot on a second connection, yielding
   * every few milliseconds (db/stepped-read.ts). Meanwhile lookups read their rows from SQL and
   * this connection's writes are noted; the files they touched are read again at the end. When
   * another connection committed meanwhile (or a transaction rolled back), it reads again, then,
   * failing that, leaves the load to the next lookup.
   */
  async warmInSteps(stepMs?: number): Promise<void> {
    if (this.warming || (this.commits.loaded && !this.commits.changed())) return;
    this.warming = true;
    this.commits.forget(); // what is held is not answered from while the table is read again
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        this.dirty.clear();
        this.warmSpoiled = false;
        const version = this.commits.read();
        const read = await readInSteps(
          this.db,
          async (reader, pause) => {
            this.reset(ftsTotalsReader(reader, "chunks_fts")().rows);
            for (const f of reader.prepare(FILES_SQL).raw().iterate() as IterableIterator<FileTuple>) {
              this.addFile(f);
              const p = pause();
              if (p) await p;
            }
            for (const r of reader.prepare(CHUNKS_SQL).raw().iterate() as IterableIterator<ChunkTuple>) {
              this.put(r);
              const p = pause();
              if (p) await p;
            }
            return true;
          },
          stepMs,
        );
        if (!read) break; // no second connection: the next lookup loads it in one go
        if (this.commits.read() === version && !this.warmSpoiled) {
          this.commits.mark(version);
          this.warming = false;
          this.current(); // the files written meanwhile
          return;
        }
      }
      this.dirty.clear();
      this.commits.forget();
    } finally {
      this.warming = false;
    }
  }

  /** The metadata of each id that is a chunk of the index (others are left out). */
  lookup(ids: readonly number[]): Map<number, ChunkMeta> {
    if (this.warming || (!this.commits.loaded && ++this.lookups <= LOOKUPS_BEFORE_LOAD)) return this.readIds(ids);
    this.current();
    const out = new Map<number, ChunkMeta>();
    for (const id of ids) {
      const m = this.get(id);
      if (m) out.set(id, m);
    }
    return out;
  }

  /**
   * For each span (a file's lines [from, to]), the visibilities of the file's chunks overlapping it,
   * in the file's chunk order (what VisibilityRepo.ofSpans reads from SQL); null while the table is
   * not loaded (a one-shot command does not load it for this), the caller then reads SQL.
   */
  visibilitiesOfSpans(spans: ReadonlyArray<{ path: string; from: number; to: number }>): string[][] | null {
    if (!this.commits.loaded || this.visibilityNames.length > MAX_VISIBILITIES) return null;
    this.current();
    if (this.visibilityNames.length > MAX_VISIBILITIES) return null;
    return spans.map(({ path, from, to }) => {
      const fileId = this.byPath.get(path);
      const file = fileId === undefined ? undefined : this.files.get(fileId);
      if (!file) return [];
      const over: number[] = [];
      for (let s = file.first; s >= 0; s = this.nextInFile[s]!)
        if (this.starts[s]! <= to && this.ends[s]! >= from) over.push(s);
      if (over.length > 1) over.sort((a, b) => this.seqs[a]! - this.seqs[b]!);
      return over.map((s) => this.visibilityNames[this.visibilityCodes[s]!]!);
    });
  }

  private get(id: number): ChunkMeta | undefined {
    const s = this.slotOf.get(id);
    if (s < 0) return undefined;
    const fileId = this.fileIds[s]!;
    const f = this.files.get(fileId);
    if (!f) return undefined;
    const ts = this.tss[s]!;
    const imp = this.importances[s]!;
    return {
      id,
      fileId,
      seq: this.seqs[s]!,
      path: f.path,
      class: f.class,
      date: f.date,
      startLine: this.starts[s]!,
      endLine: this.ends[s]!,
      ts: Number.isNaN(ts) ? null : ts,
      importance: imp < 0 ? null : imp,
    };
  }

  private readIds(ids: readonly number[]): Map<number, ChunkMeta> {
    const out = new Map<number, ChunkMeta>();
    if (ids.length === 0) return out;
    for (const [id, fileId, seq, startLine, endLine, ts, text, , path, cls, date] of this.stmts.byIds.all(
      JSON.stringify(ids),
    ) as JoinedTuple[]) {
      const importance = text === null ? null : importanceOf(text);
      out.set(id, { id, fileId, seq, path, class: cls, date, startLine, endLine, ts, importance });
    }
    return out;
  }

  private current(): void {
    const version = this.commits.read();
    if (this.commits.changed(version)) return this.loadAll(version);
    if (this.dirty.size === 0) return;
    // All the changed files' chunks go before any is read back (a deleted chunk's id may be reused).
    for (const fileId of this.dirty) this.dropFile(fileId);
    for (const fileId of this.dirty) this.readFile(fileId);
    this.dirty.clear();
  }

  private loadAll(version: number): void {
    this.dirty.clear();
    this.reset(this.chunkCount());
    for (const f of this.stmts.allFiles.iterate() as IterableIterator<FileTuple>) this.addFile(f);
    for (const r of this.stmts.allChunks.iterate() as IterableIterator<ChunkTuple>) this.put(r);
    this.commits.mark(version);
  }

  /** Empties the table for a load of about `count` chunks (files are added, then their chunks). */
  private reset(count: number): void {
    this.files = new Map();
    this.byPath = new Map();
    // Sized first and read row by row: the whole table as row arrays at once grew the heap by
    // ~150 bytes a chunk (the daemon's idle memory kept much of it).
    this.slotOf.reset(count);
    this.free = [];
    this.size = 0;
    this.resize(count);
  }

  private addFile([id, path, cls, date]: FileTuple): void {
    this.files.set(id, { path, class: cls, date, first: -1 });
    this.byPath.set(path, id);
  }

  private dropFile(fileId: number): void {
    const old = this.files.get(fileId);
    if (!old) return;
    for (let s = old.first; s >= 0; s = this.nextInFile[s]!) {
      this.slotOf.delete(this.ids[s]!);
      this.free.push(s);
    }
    this.files.delete(fileId);
    if (this.byPath.get(old.path) === fileId) this.byPath.delete(old.path);
  }

  private readFile(fileId: number): void {
    const f = this.stmts.file.get(fileId) as FileTuple | undefined;
    if (!f) return;
    this.addFile(f);
    for (const r of this.stmts.fileChunks.all(fileId) as ChunkTuple[]) this.put(r);
  }

  private put([id, fileId, seq, start, end, ts, text, visibility]: ChunkTuple): void {
    const file = this.files.get(fileId);
    if (!file) return;
    let s = this.free.pop();
    if (s === undefined) {
      if (this.size === this.ids.length) this.resize(this.size + Math.max(MIN_GROWTH, this.size >> 3));
      s = this.size++;
    }
    this.ids[s] = id;
    this.fileIds[s] = fileId;
    this.seqs[s] = seq;
    this.starts[s] = start;
    this.ends[s] = end;
    this.tss[s] = ts ?? NaN;
    const imp = text === null ? null : importanceOf(text);
    this.importances[s] = imp ?? -1;
    let code = this.visibilityCode.get(visibility);
    if (code === undefined) {
      code = this.visibilityNames.push(visibility) - 1;
      this.visibilityCode.set(visibility, code);
    }
    this.visibilityCodes[s] = code; // past MAX_VISIBILITIES the codes are not read (visibilitiesOfSpans)
    this.slotOf.set(s);
    this.nextInFile[s] = file.first;
    file.first = s;
  }

  /** Gives every array `capacity` slots, keeping the first `size`. */
  private resize(capacity: number): void {
    const more = <T extends Int32Array | Float64Array | Int8Array | Uint16Array>(a: T, make: (n: number) => T): T => {
      const b = make(capacity);
      b.set(a.subarray(0, this.size) as never);
      return b;
    };
    this.ids = more(this.ids, (n) => new Int32Array(n));
    this.fileIds = more(this.fileIds, (n) => new Int32Array(n));
    this.nextInFile = more(this.nextInFile, (n) => new Int32Array(n));
    this.seqs = more(this.seqs, (n) => new Int32Array(n));
    this.starts = more(this.starts, (n) => new Int32Array(n));
    this.ends = more(this.ends, (n) => new Int32Array(n));
    this.tss = more(this.tss, (n) => new Float64Array(n));
    this.importances = more(this.importances, (n) => new Int8Array(n));
    this.visibilityCodes = more(this.visibilityCodes, (n) => new Uint16Array(n));
  }
}
