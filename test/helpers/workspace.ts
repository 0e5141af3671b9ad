import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll } from "vitest";
import type { EmbeddingProvider } from "../../src/embed/provider.js";
import { openDatabase } from "../../src/index/db.js";
import { IndexStore } from "../../src/index/store.js";
import { Indexer } from "../../src/index/sync.js";
import { Searcher } from "../../src/search/searcher.js";
import { SearchSchema } from "../../src/config/schema.js";
import type Database from "better-sqlite3";

const created: string[] = [];
afterAll(() => {
  for (const d of created) rmSync(d, { recursive: true, force: true });
});

/** A fresh temp dir, removed after the test file. */
export function tempDir(prefix = "cortexd-test-"): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  created.push(d);
  return d;
}

/** Writes files (relative path → content) under root, creating directories. */
export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    const p = join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
}

export interface TestIndex {
  root: string;
  dbPath: string;
  store: IndexStore;
  indexer: Indexer;
  searcher: Searcher;
  close(): void;
}

/** A real index (SQLite file in a temp dir) over a workspace root. */
export function openTestIndex(root: string, provider: EmbeddingProvider | null, dbPath = join(tempDir("cortexd-db-"), "index.sqlite")): TestIndex {
  const store = new IndexStore(openDatabase(dbPath), "test");
  const indexer = new Indexer({ store, target: { root }, provider, chunking: { maxTokens: 400, overlapTokens: 80 } });
  const searcher = new Searcher({ store, provider, config: SearchSchema.parse({}) });
  return { root, dbPath, store, indexer, searcher, close: () => store.close() };
}

/** Everything the index holds, without row ids or timestamps: equal dumps = equal indexes. */
export function dumpIndex(db: Database.Database): unknown {
  const files = db.prepare(`SELECT path, class, date, size, sha256, indexed_lines, malformed FROM files ORDER BY path`).all();
  const chunks = db
    .prepare(
      `SELECT f.path, c.seq, c.start_line, c.end_line, c.hash, c.ts, c.vec_state, c.text FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY f.path, c.seq`,
    )
    .all();
  const hasVec = !!db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'chunks_vec'`).get();
  const vectors = hasVec
    ? (db
        .prepare(`SELECT f.path, c.seq, v.embedding FROM chunks_vec v JOIN chunks c ON c.id = v.rowid JOIN files f ON f.id = c.file_id ORDER BY f.path, c.seq`)
        .all() as { path: string; seq: number; embedding: Buffer }[]).map((r) => ({ ...r, embedding: r.embedding.toString("base64") }))
    : [];
  const vecCount = hasVec ? (db.prepare(`SELECT count(*) AS n FROM chunks_vec`).get() as { n: number }).n : 0;
  // FTS must hold exactly the chunks: integrity-check compares the index with the content table.
  db.prepare(`INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)`).run();
  const ftsRows = (db.prepare(`SELECT count(*) AS n FROM chunks_fts`).get() as { n: number }).n;
  return { files, chunks, vectors, vecCount, ftsRows };
}
