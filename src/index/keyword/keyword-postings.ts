import Database from "better-sqlite3";
import { statSync } from "node:fs";
import { CommitWatch } from "../db/db-generation.js";
import { ftsTotalsReader } from "./fts-totals.js";
import { FtsTokenizer } from "./fts-tokens.js";
import { errorMessage } from "../../util/error-message.js";
import { sqliteLn } from "./bm25.js";
import { PostingsBuilder, postingsBytes, type Postings } from "./postings-blocks.js";
import { InsertLog } from "./postings-inserts.js";
import { ImpactWarmer } from "./postings-impacts-warm.js";
import { applyChanges, MAX_TF, type Change } from "./postings-apply.js";

/**
 * The chunk index's postings in memory, for the daemon's keyword leg (search/keyword/postings-topk):
 * per FTS5 token (porter stem), the chunks holding it (ids ascending) and its count in each,
 * compressed in blocks (postings-blocks, bit-packed: ~1 byte a posting), plus every chunk's length in tokens — what FTS5's bm25() reads, so the leg
 * can score an OR query exactly as FTS5 does without asking it.
 *
 * The postings come from FTS5 itself: loaded from the chunk index's 'instance' vocabulary (on a
 * second, read-only connection holding one snapshot, in steps that yield to the event loop: the
 * SQL path serves until the load is done), then patched from this connection's chunk writes (the
 * store reports each insert and delete with the text given to FTS5, tokenized by FTS5 when a query
 * or the end of a sync next looks). A commit by another connection (SQLite's data_version), a write
 * that failed (its transaction rolled back), more pending writes than a reload costs, or totals
 * that stop matching FTS5's averages record drop the postings and load them again.
 */

export type { Postings } from "./postings-blocks.js";

/** The postings of the whole chunk index, as FTS5 holds them now. */
export interface PostingsView {
  lists: ReadonlyMap<string, Postings>;
  /** Tokens of each chunk by id (0: no such chunk). */
  lengths: Int32Array;
  /** Rows and tokens of the chunk index (FTS5's averages record). */
  rows: number;
  tokens: number;
  /** Moves with every change to the postings (for what callers derive from them). */
  version: number;
  /** The chunk ids inserted since the load, by version (for summaries built at an earlier version). */
  inserts: InsertLog;
  /** Bytes the lists took when loaded (compressed: postings-blocks). */
  bytes: number;
  /** The natural log as SQLite computes it (FTS5's idf; V8's Math.log differs in the last bit now and then). */
  ln(x: number): number;
}

interface PostingsData extends PostingsView {
  lists: Map<string, Postings>;
}

/** Pending chunk writes above which loading the postings again is cheaper than applying them. */
const MAX_PENDING = 4_000;
/** Pending writes patched in per turn of the event loop at the end of a sync (catchUp). */
const CATCH_UP_SLICE = 256;
/** Shortest / longest run of loading work between yields to the event loop (ms). */
const [STEP_MS, STEP_MAX_MS] = [8, 25];
/** Instances of a token above which the load reads them in steps. */
const BIG_TOKEN = 50_000;
/** Postings above which the index is not held in memory (compressed, ~1.6 bytes each: ~240 MB,
 * some 1.6M chunks of notes); a larger index is ranked by FTS5 itself, exactly, at its cost per query. */
export const MAX_POSTINGS = 150_000_000;
/**
 * Growth of the write-ahead log during a load (bytes) at which the load gives way: its snapshot
 * keeps SQLite from checkpointing past it, so a load stretched over a long sync (a cold index
 * embedding its chunks) would let the log grow by everything the sync writes.
 */
const WAL_GROWTH_MAX = 16 * 1024 * 1024;
/** First wait before a load that gave way is tried again (doubling up to a minute). */
const RETRY_MS = 2_000;

/** What status shows of the keyword postings (KeywordPostings.state). */
export type KeywordIndexState =
  { state: "memory"; postings: number; bytes: number } | { state: "loading" } | { state: "fts5"; reason?: string };

export interface KeywordPostingsOptions {
  /** More postings than this are not held in memory (default MAX_POSTINGS). */
  maxPostings?: number;
  /** WAL growth during a load at which it gives way and is tried later (default 16 MiB). */
  walGrowthMax?: number;
  /** Longest run of loading work between yields (ms). */
  stepMs?: number;
  /** First wait before a load that gave way is tried again (ms). */
  retryMs?: number;
}

const fileSize = (path: string): number => statSync(path, { throwIfNoEntry: false })?.size ?? 0;

const yieldNow = () => new Promise<void>((r) => setImmediate(r));

export class KeywordPostings {
  private enabled = false;
  private data: PostingsData | null = null;
  private loading: Promise<void> | null = null;
  private changes: Change[] = [];
  private broken = false;
  private closed = false;
  private readonly commits;
  private readonly totals;
  private readonly tokenizer;
  private readonly ln: (x: number) => number;
  /** Builds the long lists' top-chunk sets in the background (postings-impacts-warm). */
  readonly warmer = new ImpactWarmer(() => (this.enabled && !this.closed ? this.data : null));
  /** Why the last load failed (diagnostics). */
  lastError: string | undefined;

  /** Loads that gave way to a growing write-ahead log (diagnostics). */
  deferrals = 0;
  private retryAt = 0;
  private retryMs: number;
  private readonly maxPostings: number;
  private readonly walGrowthMax: number;
  private readonly stepMs: number;

  constructor(
    private readonly db: Database.Database,
    private readonly opts: KeywordPostingsOptions = {},
  ) {
    this.maxPostings = opts.maxPostings ?? MAX_POSTINGS;
    this.walGrowthMax = opts.walGrowthMax ?? WAL_GROWTH_MAX;
    this.stepMs = opts.stepMs ?? STEP_MS;
    this.retryMs = opts.retryMs ?? RETRY_MS;
    this.commits = new CommitWatch(db);
    this.totals = ftsTotalsReader(db, "chunks_fts");
    this.tokenizer = new FtsTokenizer(db, "postings_scratch");
    this.ln = sqliteLn(db);
  }

  /** Keeps the postings in memory from now on (loads them in the background). */
  enable(): void {
    if (this.enabled || this.closed) return;
    this.enabled = true;
    this.startLoad();
  }

  get isEnabled(): boolean {
    return this.enabled;
  }

  /**
   * Where keyword searches are ranked now: "memory" (the postings), "loading" (FTS5 answers until
   * the load is done), "fts5" (not held: one-shot processes, or the index is over the cap or a load
   * failed: `lastError` says why).
   */
  state(): KeywordIndexState {
    if (this.enabled && !this.closed && this.data) {
      let [postings, bytes] = [0, this.data.lengths.byteLength];
      for (const list of this.data.lists.values()) {
        postings += list.n;
        bytes += postingsBytes(list);
      }
      return { state: "memory", postings, bytes };
    }
    if (this.enabled && !this.closed) return { state: "loading" };
    return this.lastError ? { state: "fts5", reason: this.lastError } : { state: "fts5" };
  }

  /** Resolves when the current load (if any) is done. */
  async ready(): Promise<boolean> {
    while (this.loading) await this.loading;
    return this.current() !== null;
  }

  /** Called inside the transaction that inserts a chunk (`text`: what FTS5 was given). */
  chunkInserted(id: number, text: string): void {
    this.note({ kind: "insert", id, text });
  }

  /** Called inside the transaction that deletes a chunk (`text`: what FTS5 was given). */
  chunkDeleted(id: number, text: string): void {
    this.note({ kind: "delete", id, text });
  }

  /** Chunk writes held to patch the postings with (diagnostics: at most MAX_PENDING). */
  get pendingWrites(): number {
    return this.changes.length;
  }

  /**
   * Holds a write to patch the postings with; past MAX_PENDING the postings will be loaded again
   * anyway, so the writes are dropped (a cold index does not hold every chunk's text until a query).
   */
  private note(c: Change): void {
    if (!this.enabled || this.broken) return;
    if (this.changes.length < MAX_PENDING) {
      this.changes.push(c);
      return;
    }
    this.changes = [];
    this.broken = true;
  }

  /** A sync has ended (writes have settled): a load that gave way may be tried at once. */
  settled(): void {
    this.retryAt = 0;
    this.retryMs = this.opts.retryMs ?? RETRY_MS;
  }

  /** A chunk write failed (its transaction may have rolled back): the postings are reloaded. */
  writeFailed(): void {
    if (this.enabled) this.broken = true;
  }

  close(): void {
    this.closed = true;
    this.data = null;
    this.changes = [];
  }

  /**
   * The postings, in step with the index; null while they load (or cannot be kept), when the
   * caller uses the SQL path. Applies this connection's pending writes first.
   */
  current(): PostingsView | null {
    if (!this.enabled || this.closed) return null;
    if (!this.data) {
      this.startLoad();
      return null;
    }
    if (this.db.inTransaction) return null;
    if (this.broken || this.commits.changed()) {
      this.data = null;
      this.startLoad();
      return null;
    }
    if (this.changes.length > 0) {
      if (!this.patch(this.data, this.changes)) return null;
      this.changes = [];
      this.warmer.kick();
      const t = this.totals();
      if (t.rows !== this.data.rows || t.tokens !== this.data.tokens) {
        this.data = null;
        this.startLoad();
        return null;
      }
    }
    return this.data;
  }

  /**
   * Patches the pending writes in (the end of a sync), CATCH_UP_SLICE at a time with a turn of the
   * event loop between: FTS5 tokenizing up to MAX_PENDING chunk texts in one call held the loop for
   * ~0.3–1 s. A search in between applies the rest itself (current()); then the totals are checked.
   */
  async catchUp(): Promise<void> {
    while (
      this.enabled &&
      !this.closed &&
      this.data &&
      !this.broken &&
      !this.db.inTransaction &&
      this.changes.length > CATCH_UP_SLICE &&
      !this.commits.changed()
    ) {
      if (!this.patch(this.data, this.changes.splice(0, CATCH_UP_SLICE))) return;
      this.warmer.kick();
      await yieldNow();
    }
    this.current();
  }

  /** Applies chunk writes (FTS5 tokenizes their texts); on a failure the postings turn off and false is returned. */
  private patch(data: PostingsData, changes: readonly Change[]): boolean {
    try {
      applyChanges(data, changes, this.tokenizer.tokens(changes.map((c) => c.text)));
      return true;
    } catch (e) {
      // Never a search's error: the postings turn off and FTS5 serves.
      this.lastError = errorMessage(e);
      this.enabled = false;
      this.data = null;
      this.changes = [];
      return false;
    }
  }

  private startLoad(): void {
    if (this.loading || this.closed || !this.enabled || Date.now() < this.retryAt) return;
    this.loading = this.load()
      .catch((e: unknown) => {
        // Not tried again on every query: the SQL path serves from now on.
        this.lastError = errorMessage(e);
        this.enabled = false;
        this.changes = [];
      })
      .finally(() => {
        this.loading = null;
      });
  }

  private async load(): Promise<void> {
    await yieldNow(); // never on the caller's time
    const file = this.db.memory ? null : this.db.name;
    const reader = file ? new Database(file, { readonly: true, fileMustExist: true }) : this.db;
    try {
      reader.exec(`
        CREATE VIRTUAL TABLE IF NOT EXISTS temp.postings_rows USING fts5vocab(main, chunks_fts, 'row');
        CREATE VIRTUAL TABLE IF NOT EXISTS temp.postings_instances USING fts5vocab(main, chunks_fts, 'instance');
      `);
      if (reader !== this.db) reader.exec("BEGIN");
      // (An in-memory database has no second connection: loaded in one go.)
      const steps = reader !== this.db;
      let stepStart = performance.now();
      // A step lasts as long as other work ran while it waited (≤ STEP_MAX_MS): queries do not starve it.
      let step = this.stepMs;
      const wal = `${file}-wal`;
      const walAtStart = steps ? fileSize(wal) : 0;
      const pause = async (): Promise<boolean> => {
        if (!steps || performance.now() - stepStart <= step) return false;
        const yielded = performance.now();
        await yieldNow();
        stepStart = performance.now();
        step = Math.max(this.stepMs, Math.min(this.stepMs && STEP_MAX_MS, stepStart - yielded));
        if (this.closed) return true;
        if (fileSize(wal) - walAtStart <= this.walGrowthMax) return false;
        // Writes are piling up behind this snapshot: give way, try again later (FTS5 serves).
        this.deferrals++;
        this.retryAt = Date.now() + this.retryMs;
        this.retryMs = Math.min(60_000, this.retryMs * 2);
        return true;
      };
      // The snapshot starts with the first read: writes from then on are the pending changes.
      const snapshot = () => {
        this.changes = [];
        this.broken = false;
        this.commits.mark();
      };
      const vocab: [string, number, number][] = [];
      const vocabRows = reader.prepare(`SELECT term, doc, cnt FROM temp.postings_rows`).raw();
      for (const row of vocabRows.iterate() as IterableIterator<[string, number, number]>) {
        if (vocab.push(row) === 1) snapshot();
        // Each row reads the token's whole list inside FTS5 (a common token's: tens of ms): a check per row.
        if (await pause()) return;
      }
      if (vocab.length === 0) snapshot();
      const postings = vocab.reduce((n, [, df]) => n + df, 0);
      if (postings > this.maxPostings)
        throw new Error(`${postings} postings are more than the ${this.maxPostings} held in memory: FTS5 ranks`);
      const maxId = (reader.prepare(`SELECT max(id) FROM chunks`).pluck().get() as number | null) ?? 0;
      const totals = ftsTotalsReader(reader, "chunks_fts")();
      const data: PostingsData = {
        lists: new Map(),
        lengths: new Int32Array(maxId + 1),
        rows: 0,
        tokens: 0,
        version: 0,
        inserts: new InsertLog(),
        bytes: 0,
        ln: this.ln,
      };
      const docsOf = reader.prepare(`SELECT doc FROM temp.postings_instances WHERE term = ?`).pluck();
      let rows = 0;
      const list = new PostingsBuilder();
      for (const [term, df, instances] of vocab) {
        // One row per instance, by chunk id: a run of equal ids is the token's count in that chunk.
        // A common token's rows are read one by one (in steps), the others at once (cheaper per row).
        let last = -1;
        let tf = 0;
        let n = 0;
        const ids = (steps && instances > BIG_TOKEN ? docsOf.iterate(term) : docsOf.all(term)) as Iterable<number>;
        for (const id of ids) {
          if (id !== last) {
            if (tf > 0) list.add(last, tf);
            if (n++ === df) throw new Error(`the vocabulary of "${term}" changed while loading`);
            last = id;
            tf = 0;
          }
          if (++tf === MAX_TF) throw new Error(`a chunk holds "${term}" ${MAX_TF} times or more`);
          data.lengths[id]!++;
          // Even one very common token's instances are read in steps.
          if (++rows % 4096 === 0 && (await pause())) return;
        }
        if (tf > 0) list.add(last, tf);
        if (n !== df) throw new Error(`the vocabulary of "${term}" changed while loading`);
        const done = list.finish();
        data.bytes += postingsBytes(done);
        data.lists.set(term, done);
      }
      for (let id = 0; id <= maxId; id++) {
        if (data.lengths[id]! > 0) {
          data.rows++;
          data.tokens += data.lengths[id]!;
        }
      }
      if (data.rows !== totals.rows || data.tokens !== totals.tokens)
        throw new Error(
          `postings hold ${data.rows} rows / ${data.tokens} tokens, FTS5 ${totals.rows} / ${totals.tokens}`,
        );
      if (!this.closed) {
        this.data = data;
        this.warmer.kick();
      }
      this.retryMs = this.opts.retryMs ?? RETRY_MS;
    } finally {
      if (reader !== this.db) reader.close();
    }
  }
}
