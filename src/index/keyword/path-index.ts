import type Database from "better-sqlite3";
import { B, K1, fts5Idf, sqliteLn } from "./bm25.js";
import { CommitWatch } from "../db/db-generation.js";
import { readInSteps } from "../db/stepped-read.js";
import { FtsTokenizer, PATH_TOKENIZER, type TextTokens } from "./fts-tokens.js";

/** Path tokens held at most (beyond it only each word's file count is held, and search asks FTS5). */
const MAX_INSTANCES = 2_000_000;
/** Distinct path words counted at most beyond MAX_INSTANCES (a few MB; beyond it FTS5 counts). */
const MAX_TERMS = 200_000;

interface Postings {
  files: Int32Array;
  tfs: Int32Array;
}

interface Loaded {
  /** Each file's path, to tell whether a write changed any. */
  paths: Map<number, string>;
  /** null past maxInstances path tokens: then only `fileCounts` is held. */
  postings: Map<string, Postings> | null;
  /** Files whose path holds each word (past maxInstances; else postings say it). */
  fileCounts: Map<string, number> | null;
  /** Tokens of each file's path (FTS5's document size). */
  lengths: Map<number, number>;
  /** Tokens of all paths. */
  tokens: number;
  rows: number;
  avgTokens: number;
}

/**
 * The path index (files_fts) in memory: each path word's files with its count in the path, and each
 * path's length in tokens, read from FTS5's own index (fts5vocab 'instance': the tokens as FTS5
 * made them), so the path stage ranks files by BM25 exactly as `bm25(files_fts)` does without a
 * query. Read again when the paths change: another connection's commit (PRAGMA data_version), or a
 * write of this connection that added, renamed or deleted a file (the store tells of each file it
 * writes; a re-indexed file keeps its path, and re-reading then would cost every search after a
 * transcript append). Paths are few (a few tokens each), so this is small; a workspace past
 * MAX_INSTANCES path tokens keeps only each word's file count (fts5vocab 'row'; searches say
 * "unknown": ask FTS5), and past MAX_TERMS distinct words not even that.
 */
export class PathIndex {
  private readonly stmts;
  private readonly commits;
  private readonly ln: (x: number) => number;
  private loaded: Loaded | null = null;
  /** Times the index was read whole (diagnostics). */
  reads = 0;
  /** Set while warmInSteps reads; spoiled by a rollback meanwhile. */
  private warming = false;
  private warmSpoiled = false;
  private readonly dirty = new Set<number>();
  private readonly tokenizer: FtsTokenizer;

  private readonly maxInstances: number;
  private readonly maxTerms: number;

  constructor(
    private readonly db: Database.Database,
    opts: { maxInstances?: number; maxTerms?: number } = {},
  ) {
    this.maxInstances = opts.maxInstances ?? MAX_INSTANCES;
    this.maxTerms = opts.maxTerms ?? MAX_TERMS;
    this.ln = sqliteLn(db);
    this.stmts = {
      ...pathStatements(db),
      path: db.prepare(`SELECT path FROM files WHERE id = ?`).pluck(),
    };
    this.commits = new CommitWatch(db);
    this.tokenizer = new FtsTokenizer(db, "path_tokens", PATH_TOKENIZER);
  }

  /** Called by the store inside a transaction that writes a file's row. */
  fileChanged(fileId: number): void {
    if (this.commits.loaded || this.warming) this.dirty.add(fileId);
  }

  /**
   * Reads the index ahead of the first search without holding the event loop (the daemon, after
   * its startup sync: ~1 s at 100,000 files), from a snapshot on a second connection
   * (db/stepped-read.ts). This connection's writes meanwhile are followed at the next use; another
   * connection's commit, a rollback, or a search that read it first leaves it to the next use.
   */
  async warmInSteps(stepMs?: number): Promise<void> {
    if (this.warming || (this.commits.loaded && !this.commits.changed())) return;
    this.warming = true;
    this.warmSpoiled = false;
    this.dirty.clear();
    try {
      const version = this.commits.read();
      const read = await readInSteps(
        this.db,
        async (reader, pause) => {
          const steps = readIndex(pathStatements(reader), this.maxInstances, this.maxTerms);
          for (;;) {
            const r = steps.next();
            if (r.done) return { loaded: r.value };
            const p = pause();
            if (p) await p;
          }
        },
        stepMs,
      );
      if (!read || this.warmSpoiled || this.commits.loaded || this.commits.read() !== version) return;
      this.loaded = read.loaded;
      this.reads++;
      this.commits.mark(version);
    } finally {
      this.warming = false;
    }
  }

  /** A transaction failed (index/db/copies.ts): paths read inside it may be gone, so all are read again. */
  rolledBack(): void {
    if (this.warming) this.warmSpoiled = true;
    this.commits.forget();
    this.dirty.clear();
  }

  /** Files whose path holds `word` (as search() takes it), or null when the index cannot say. */
  filesWith(word: string): number | null {
    if (!/^[a-z0-9]+$/.test(word)) return null;
    const idx = this.current();
    if (!idx) return null;
    return idx.postings ? (idx.postings.get(word)?.files.length ?? 0) : (idx.fileCounts!.get(word) ?? 0);
  }

  /**
   * The best `limit` files for the OR of `words` (each one lowercase ASCII letter/digit run, a
   * single FTS5 token), with FTS5's bm25 rank (negative, lower is better; ties by file id), or null
   * when the index is not held or a word is of another kind.
   */
  search(words: readonly string[], limit: number): { fileId: number; rank: number }[] | null {
    if (!words.every((w) => /^[a-z0-9]+$/.test(w))) return null;
    const idx = this.current();
    if (!idx?.postings) return null;
    const scores = new Map<number, number>();
    for (const w of words) {
      const p = idx.postings.get(w);
      if (!p) continue;
      const idf = fts5Idf(p.files.length, idx.rows, this.ln);
      for (let i = 0; i < p.files.length; i++) {
        const file = p.files[i]!;
        const tf = p.tfs[i]!;
        const d = idx.lengths.get(file)!;
        // As FTS5's bm25(): Σ idf × tf(k1+1) / (tf + k1(1 − b + b·D/avgdl)), in the query's word order.
        const add = idf * ((tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * d) / idx.avgTokens)));
        scores.set(file, (scores.get(file) ?? 0) + add);
      }
    }
    return [...scores]
      .map(([fileId, score]) => ({ fileId, rank: -1 * score }))
      .sort((a, b) => a.rank - b.rank || a.fileId - b.fileId)
      .slice(0, limit);
  }

  private current(): Loaded | null {
    const version = this.commits.read();
    if (!this.commits.changed(version) && this.followWrites()) return this.loaded;
    this.dirty.clear();
    this.loaded = this.load();
    this.commits.mark(version);
    return this.loaded;
  }

  /**
   * Applies the files this connection added, renamed or deleted since the load (a re-indexed file
   * keeps its path: nothing to do), with FTS5's own tokens of the paths (fts-tokens.ts); false when
   * the index must be read again instead (many changes at once). At 100,000 files a read takes
   * ~1 s, which each new file cost before.
   */
  private followWrites(): boolean {
    if (this.dirty.size === 0) return true;
    const idx = this.loaded;
    const changes: Array<[id: number, was: string | undefined, now: string | undefined]> = [];
    for (const id of this.dirty) {
      const now = this.stmts.path.get(id) as string | undefined;
      const was = idx?.paths.get(id);
      if (now !== was) changes.push([id, was, now]);
    }
    this.dirty.clear();
    if (changes.length === 0) return true;
    if (!idx?.postings || changes.length > MAX_FOLLOWED) return false;
    const paths = changes.flatMap(([, was, now]) => [was ?? "", now ?? ""]);
    const tokens = this.tokenizer.tokens(paths);
    for (let i = 0; i < changes.length; i++) {
      const [id, was, now] = changes[i]!;
      if (was !== undefined && !removeFile(idx, idx.postings, id, tokens[2 * i]!)) return false;
      if (now !== undefined) addFile(idx, idx.postings, id, now, tokens[2 * i + 1]!);
    }
    idx.rows = idx.lengths.size;
    idx.avgTokens = idx.rows ? idx.tokens / idx.rows : 1;
    return true;
  }

  private load(): Loaded | null {
    this.reads++;
    const steps = readIndex(this.stmts, this.maxInstances, this.maxTerms);
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
    }
  }
}

interface PathStatements {
  instances: Database.Statement;
  words: Database.Statement;
  paths: Database.Statement;
}

/** The statements the index is read with, on a connection (its fts5vocab tables made there). */
function pathStatements(db: Database.Database): PathStatements {
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.files_instances USING fts5vocab(main, files_fts, 'instance')`);
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.files_vocab USING fts5vocab(main, files_fts, 'row')`);
  return {
    instances: db.prepare(`SELECT term, doc FROM temp.files_instances LIMIT ?`).raw(),
    words: db.prepare(`SELECT term, doc FROM temp.files_vocab LIMIT ?`).raw(),
    paths: db.prepare(`SELECT id, path FROM files`).raw(),
  };
}

/** Reads the index, yielding every 64 rows (a caller in steps may take a turn of the event loop there; one in one go does not). */
function* readIndex(stmts: PathStatements, maxInstances: number, maxTerms: number): Generator<void, Loaded | null> {
  const paths = new Map(stmts.paths.all() as [number, string][]);
  // fts5vocab's instance rows come by term, then document: each term's files are a run, counted
  // as they stream by (the rows as arrays and a map per term held ~0.6 s and hundreds of MB of
  // heap at 100,000 files, once per file added, renamed or deleted).
  const lengths = new Map<number, number>();
  const postings = new Map<string, Postings>();
  let instances = 0;
  let term: string | null = null;
  let files: number[] = [];
  let tfs: number[] = [];
  const flush = () => {
    if (term !== null) postings.set(term, { files: Int32Array.from(files), tfs: Int32Array.from(tfs) });
    files = [];
    tfs = [];
  };
  for (const [t, doc] of stmts.instances.iterate(maxInstances + 1) as IterableIterator<[string, number]>) {
    if (++instances > maxInstances) break;
    lengths.set(doc, (lengths.get(doc) ?? 0) + 1);
    if (t !== term) {
      if (postings.has(t)) throw new Error(`path index: instance rows of "${t}" not in one run`);
      flush();
      term = t;
    }
    const last = files.length - 1;
    if (last >= 0 && files[last] === doc) tfs[last]!++;
    else if (last >= 0 && files[last]! > doc) throw new Error(`path index: instance rows of "${t}" not by document`);
    else {
      files.push(doc);
      tfs.push(1);
    }
    if ((instances & 63) === 0) yield;
  }
  flush();
  if (instances > maxInstances) {
    const words = stmts.words.all(maxTerms + 1) as [string, number][];
    if (words.length > maxTerms) return null;
    return {
      paths,
      postings: null,
      fileCounts: new Map(words),
      lengths: new Map(),
      tokens: 0,
      rows: 0,
      avgTokens: 1,
    };
  }
  const n = lengths.size;
  return { paths, postings, fileCounts: null, lengths, tokens: instances, rows: n, avgTokens: n ? instances / n : 1 };
}

/** Changes followed at once at most (more: the index is read again). */
const MAX_FOLLOWED = 1000;

function addFile(idx: Loaded, postings: Map<string, Postings>, id: number, path: string, tokens: TextTokens): void {
  const n = tokens.length;
  for (const [term, tf] of tokens.tf) {
    const p = postings.get(term);
    const files = new Int32Array((p?.files.length ?? 0) + 1);
    const tfs = new Int32Array(files.length);
    if (p) {
      files.set(p.files);
      tfs.set(p.tfs);
    }
    files[files.length - 1] = id;
    tfs[tfs.length - 1] = tf;
    postings.set(term, { files, tfs });
  }
  idx.paths.set(id, path);
  if (n === 0) return;
  idx.lengths.set(id, n);
  idx.tokens += n;
}

/** Takes a file out; false when its tokens were not where they should be (the index is read again). */
function removeFile(idx: Loaded, postings: Map<string, Postings>, id: number, tokens: TextTokens): boolean {
  idx.paths.delete(id);
  for (const term of tokens.tf.keys()) {
    const p = postings.get(term);
    const at = p ? p.files.indexOf(id) : -1;
    if (!p || at < 0) return false;
    if (p.files.length === 1) {
      postings.delete(term);
      continue;
    }
    const files = new Int32Array(p.files.length - 1);
    const tfs = new Int32Array(files.length);
    files.set(p.files.subarray(0, at));
    files.set(p.files.subarray(at + 1), at);
    tfs.set(p.tfs.subarray(0, at));
    tfs.set(p.tfs.subarray(at + 1), at);
    postings.set(term, { files, tfs });
  }
  idx.tokens -= idx.lengths.get(id) ?? 0;
  idx.lengths.delete(id);
  return true;
}
