import type Database from "better-sqlite3";
import { bm25G, fts5Idf } from "./bm25.js";
import { prepareFtsText } from "./fts-text.js";
import { ftsTotalsReader } from "./fts-totals.js";

/**
 * Impact-ordered "champion" lists for the common words of a large index: per porter stem found in
 * more than LIST_MIN_DF chunks, the LIST_SIZE chunks where the stem weighs most in BM25, by FTS5's
 * term-frequency part g = tf·(k1+1) / (tf + k1·(1 − b + b·len/avgLen)) (score = Σ idf × g).
 * Every chunk not in a full list has g ≤ the list's gMin, so a query over common words can take its
 * candidates from the lists' heads and bound what the rest could score (search/keyword/lists).
 *
 * The lists are a cache of the FTS index, kept consistent with it in the same transactions:
 * - a deleted chunk leaves every list at once (gMin stays a valid bound: nothing rose above it);
 * - a new chunk is queued in term_list_pending; a fold step (after each sync) tokenizes the queued
 *   chunks with FTS5's own tokenizer and enters them where their g beats the list's gMin;
 *   until then a search scores the queued chunks itself.
 * `refresh` (after a large sync and in the nightly maintenance) builds the lists of stems that
 * became common and rebuilds those whose mean chunk length drifted; `rebuild` starts over. Stems
 * found in more than half the chunks get no list: FTS5 floors their idf, they weigh nothing.
 */

/** Stems in more chunks than this get a list (half the keyword postings budget: rarer ones FTS5 scores itself). */
export const LIST_MIN_DF = 5_000;
/** Chunks kept per list. */
export const LIST_SIZE = 2_000;
/** A list is rebuilt when the mean chunk length moved this much since it was built (g depends on it). */
const AVG_DRIFT = 0.05;
/** Queued chunks tokenized per fold step. */
const FOLD_STEP = 500;
/** List heads kept in memory (24 KB each: at most 24 MB). */
const HEADS_CACHED = 1_024;
/** Vocabulary ranges scanned per step (fts5vocab reads every posting list of the range). */
const VOCAB_RANGES = [
  "",
  "b",
  "c",
  "d",
  "e",
  "f",
  "g",
  "h",
  "i",
  "j",
  "k",
  "l",
  "m",
  "n",
  "o",
  "p",
  "q",
  "r",
  "s",
  "t",
  "u",
  "v",
  "w",
  "x",
  "y",
  "z",
  "\u0080",
];

export interface TermListHead {
  /** Best chunks first (ids[i] has g gs[i]). */
  ids: Int32Array;
  gs: Float64Array;
  /** A bound on g for every chunk not in the head (0: the list holds every chunk with the stem). */
  bound: number;
}

export interface RefreshReport {
  built: number;
  dropped: number;
  folded: number;
  ms: number;
}

const yieldNow = () => new Promise<void>((r) => setImmediate(r));

export class TermLists {
  private readonly stmts;
  private tempReady = false;
  private readonly heads = new Map<string, TermListHead | null>();
  private headsGeneration = "";
  /** Bumped by every write of this connection to the lists (the cached heads are then dropped). */
  private version = 0;
  /** Rows and tokens of the chunk index (FTS5's averages record). */
  private readonly totals: () => { rows: number; tokens: number };

  constructor(private readonly db: Database.Database) {
    this.stmts = {
      any: db.prepare(`SELECT EXISTS (SELECT 1 FROM term_lists)`).pluck(),
      list: db.prepare(`SELECT size, g_min AS gMin, complete FROM term_lists WHERE stem = ?`),
      df: db.prepare(`SELECT df FROM term_lists WHERE stem = ?`).pluck(),
      addDf: db.prepare(`UPDATE term_lists SET df = df + ? WHERE stem = ?`),
      head: db
        .prepare(`SELECT chunk_id, g FROM term_list_entries WHERE stem = ? ORDER BY g DESC, chunk_id LIMIT ?`)
        .raw(),
      queue: db.prepare(`INSERT OR IGNORE INTO term_list_pending (chunk_id) VALUES (?)`),
      unqueue: db.prepare(`DELETE FROM term_list_pending WHERE chunk_id = ?`),
      dropChunk: db.prepare(`DELETE FROM term_list_entries WHERE chunk_id = ?`),
      pendingCount: db.prepare(`SELECT count(*) FROM term_list_pending`).pluck(),
      pendingIds: db.prepare(`SELECT chunk_id FROM term_list_pending ORDER BY chunk_id DESC LIMIT ?`).pluck(),
      dataVersion: db.prepare(`PRAGMA data_version`).pluck(),
    };
    this.totals = ftsTotalsReader(db, "chunks_fts");
  }

  /** True when lists exist (then writes keep them current). */
  active(): boolean {
    return this.stmts.any.get() === 1;
  }

  /** Called by the store inside the transaction that inserts a chunk. */
  chunkInserted(id: number, active: boolean): void {
    if (active) this.stmts.queue.run(id);
  }

  /** Called by the store inside the transaction that deletes a chunk. */
  chunkDeleted(id: number, active: boolean): void {
    if (!active) return;
    if (this.stmts.dropChunk.run(id).changes > 0) this.version++;
    this.stmts.unqueue.run(id);
  }

  /**
   * The best `limit` entries of a stem's list, or null when the stem has none. Kept in memory until
   * the index changes (reading a list is a statement over its entries; a query reads one head per common word).
   */
  head(stem: string, limit: number): TermListHead | null {
    // Other connections' commits move data_version; this connection's list writes move `version`
    // (not its other writes: the query-word scratch table, the recall log).
    const generation = `${this.stmts.dataVersion.get() as number}:${this.version}`;
    if (generation !== this.headsGeneration) {
      this.heads.clear();
      this.headsGeneration = generation;
    }
    const key = `${limit} ${stem}`;
    if (this.heads.has(key)) return this.heads.get(key)!;
    const head = this.readHead(stem, limit);
    if (this.heads.size >= HEADS_CACHED) this.heads.delete(this.heads.keys().next().value!);
    this.heads.set(key, head);
    return head;
  }

  private readHead(stem: string, limit: number): TermListHead | null {
    const list = this.stmts.list.get(stem) as { size: number; gMin: number; complete: number } | undefined;
    if (!list) return null;
    const rows = this.stmts.head.all(stem, limit) as [number, number][];
    const ids = new Int32Array(rows.length);
    const gs = new Float64Array(rows.length);
    rows.forEach(([id, g], i) => {
      ids[i] = id;
      gs[i] = g;
    });
    // Cut short: the last entry read bounds the rest; else the list's own bound.
    const bound = rows.length >= limit ? gs[rows.length - 1]! : list.complete ? 0 : list.gMin;
    return { ids, gs, bound };
  }

  /**
   * Chunks holding a listed stem: exact when its list was built (fts5vocab), then kept up by the
   * folds (chunks deleted since are not subtracted: a slight over-count until the next rebuild).
   * Null when the stem has no list.
   */
  df(stem: string): number | null {
    return (this.stmts.df.get(stem) as number | undefined) ?? null;
  }

  /** Chunks written since the last fold (newest first, at most `limit`) and how many there are. */
  pending(limit: number): { ids: number[]; total: number } {
    const total = this.stmts.pendingCount.get() as number;
    return { ids: total ? (this.stmts.pendingIds.all(limit) as number[]) : [], total };
  }

  /**
   * Builds the lists of common stems that have none, rebuilds drifted ones, drops those of stems no
   * longer common, then folds the queued chunks in. Works in steps (one stem, one vocabulary range,
   * FOLD_STEP chunks), yielding to the event loop between them. Below 2 × minDf chunks nothing is
   * built (no useful stem can be that common). minDf and size: LIST_MIN_DF and LIST_SIZE (tests use less).
   */
  async refresh(
    opts: { force?: boolean; signal?: AbortSignal; minDf?: number; size?: number } = {},
  ): Promise<RefreshReport> {
    const minDf = opts.minDf ?? LIST_MIN_DF;
    const size = opts.size ?? LIST_SIZE;
    const t0 = performance.now();
    const report: RefreshReport = { built: 0, dropped: 0, folded: 0, ms: 0 };
    const { rows, tokens } = this.totals();
    const avg = rows ? tokens / rows : 0;
    if (rows < 2 * minDf && !this.active()) return { ...report, ms: Math.round(performance.now() - t0) };
    if (opts.force) {
      this.db.exec(`DELETE FROM term_lists; DELETE FROM term_list_entries; DELETE FROM term_list_pending;`);
      this.version++;
    }
    this.ensureTemp();
    // Common stems now (one vocabulary range per step).
    const common = new Map<string, number>();
    const vocab = this.db
      .prepare(`SELECT term, doc FROM temp.term_lists_vocab WHERE term >= ? AND term < ? AND doc > ?`)
      .raw();
    const vocabTail = this.db.prepare(`SELECT term, doc FROM temp.term_lists_vocab WHERE term >= ? AND doc > ?`).raw();
    for (let i = 0; i < VOCAB_RANGES.length; i++) {
      if (opts.signal?.aborted) return { ...report, ms: Math.round(performance.now() - t0) };
      const lo = VOCAB_RANGES[i]!;
      const hi = VOCAB_RANGES[i + 1];
      const found = (hi === undefined ? vocabTail.all(lo, minDf) : vocab.all(lo, hi, minDf)) as [string, number][];
      for (const [term, df] of found) if (df <= rows / 2) common.set(term, df);
      await yieldNow();
    }
    const existing = new Map(
      (this.db.prepare(`SELECT stem, avg_tokens FROM term_lists`).raw().all() as [string, number][]).map(([s, a]) => [
        s,
        a,
      ]),
    );
    const drop = this.db.prepare(`DELETE FROM term_list_entries WHERE stem = ?`);
    const dropList = this.db.prepare(`DELETE FROM term_lists WHERE stem = ?`);
    for (const stem of existing.keys()) {
      if (common.has(stem)) continue;
      this.db.transaction(() => {
        drop.run(stem);
        dropList.run(stem);
      })();
      this.version++;
      report.dropped++;
    }
    // Fold first: a list built below already holds the queued chunks (it reads the whole FTS index).
    report.folded += await this.fold(opts.signal);
    for (const [stem, df] of common) {
      if (opts.signal?.aborted) break;
      const a = existing.get(stem);
      if (a !== undefined && Math.abs(a - avg) <= AVG_DRIFT * avg) continue;
      if (this.buildList(stem, df, rows, avg, size)) report.built++;
      await yieldNow();
    }
    report.ms = Math.round(performance.now() - t0);
    return report;
  }

  /**
   * One stem's list from FTS5: for a one-word query bm25() = −idf × g, so its best LIST_SIZE are the
   * best by g. The word is queried as the stem itself; a stem that porter would change again (the
   * query would match another token) gets no list.
   */
  private buildList(stem: string, df: number, rows: number, avg: number, size: number): boolean {
    if (!/^[\p{L}\p{N}]+$/u.test(stem) || this.stemOf(stem) !== stem) return false;
    const hits = this.db
      .prepare(`SELECT rowid, bm25(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank, rowid LIMIT ?`)
      .raw()
      .all(`"${stem}"`, size) as [number, number][];
    const w = fts5Idf(df, rows);
    const complete = hits.length < size ? 1 : 0;
    const gMin = complete ? 0 : -hits[hits.length - 1]![1] / w;
    const put = this.db.prepare(`INSERT OR REPLACE INTO term_list_entries (stem, g, chunk_id) VALUES (?, ?, ?)`);
    this.db.transaction(() => {
      this.db.prepare(`DELETE FROM term_list_entries WHERE stem = ?`).run(stem);
      for (const [id, rank] of hits) put.run(stem, -rank / w, id);
      this.db
        .prepare(
          `INSERT OR REPLACE INTO term_lists (stem, df, size, g_min, complete, avg_tokens, rows, built_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(stem, df, hits.length, gMin, complete, avg, rows, Date.now());
    })();
    this.version++;
    return true;
  }

  /**
   * Enters the queued chunks into the lists: each is tokenized by FTS5 (a scratch table with the
   * index's tokenizer), and joins a list where its g beats the list's gMin. Returns how many.
   */
  async fold(signal?: AbortSignal): Promise<number> {
    if (!this.active()) return 0;
    this.ensureTemp();
    const lists = new Map(
      (this.db.prepare(`SELECT stem, g_min, complete FROM term_lists`).raw().all() as [string, number, number][]).map(
        ([s, g, c]) => [s, c ? 0 : g],
      ),
    );
    const batch = this.db
      .prepare(
        `SELECT p.chunk_id, c.text FROM term_list_pending p LEFT JOIN chunks c ON c.id = p.chunk_id ORDER BY p.chunk_id LIMIT ?`,
      )
      .raw();
    const scratchPut = this.db.prepare(`INSERT INTO temp.term_lists_scratch (rowid, t) VALUES (?, ?)`);
    const scratchRead = this.db.prepare(`SELECT doc, term FROM temp.term_lists_scratch_v`).raw();
    const put = this.db.prepare(`INSERT OR REPLACE INTO term_list_entries (stem, g, chunk_id) VALUES (?, ?, ?)`);
    let folded = 0;
    for (;;) {
      if (signal?.aborted) break;
      const rows = batch.all(FOLD_STEP) as [number, string | null][];
      if (rows.length === 0) break;
      const { rows: n, tokens } = this.totals();
      const avg = n ? tokens / n : 0;
      this.db.transaction(() => {
        for (const [id, text] of rows) if (text !== null) scratchPut.run(id, prepareFtsText(text));
        const len = new Map<number, number>();
        const tf = new Map<string, number>(); // `${doc} ${stem}` → count
        for (const [doc, term] of scratchRead.iterate() as IterableIterator<[number, string]>) {
          len.set(doc, (len.get(doc) ?? 0) + 1);
          if (lists.has(term)) tf.set(`${doc} ${term}`, (tf.get(`${doc} ${term}`) ?? 0) + 1);
        }
        const added = new Map<string, number>();
        for (const [key, count] of tf) {
          const cut = key.indexOf(" ");
          const doc = Number(key.slice(0, cut));
          const stem = key.slice(cut + 1);
          added.set(stem, (added.get(stem) ?? 0) + 1);
          const g = bm25G(count, len.get(doc)!, avg);
          if (g > lists.get(stem)!) put.run(stem, g, doc);
        }
        for (const [stem, n] of added) this.stmts.addDf.run(n, stem);
        this.db.exec(`DELETE FROM temp.term_lists_scratch`);
        for (const [id] of rows) this.stmts.unqueue.run(id);
      })();
      folded += rows.length;
      this.version++;
      await yieldNow();
    }
    return folded;
  }

  /** The porter stem FTS5 makes of a word (its first token). */
  private stemOf(word: string): string | undefined {
    this.ensureTemp();
    return this.db.transaction(() => {
      this.db.prepare(`INSERT INTO temp.term_lists_scratch (rowid, t) VALUES (1, ?)`).run(word);
      const t = this.db.prepare(`SELECT term FROM temp.term_lists_scratch_v WHERE doc = 1 LIMIT 1`).pluck().get() as
        string | undefined;
      this.db.exec(`DELETE FROM temp.term_lists_scratch`);
      return t;
    })();
  }

  private ensureTemp(): void {
    if (this.tempReady) return;
    this.db.exec(`
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.term_lists_scratch USING fts5(t, tokenize = 'porter unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.term_lists_scratch_v USING fts5vocab(temp, term_lists_scratch, 'instance');
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.term_lists_vocab USING fts5vocab(main, chunks_fts, 'row');
    `);
    this.tempReady = true;
  }
}
