import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach } from "vitest";
import type { EmbeddingProvider } from "../../src/embed/provider.js";
import { openDatabase } from "../../src/index/db/db.js";
import { IndexStore } from "../../src/index/repos/store.js";
import { Indexer } from "../../src/indexer/sync.js";
import type { ChunkingOptions } from "../../src/ingest/types.js";
import { Searcher } from "../../src/search/searcher.js";
import { SearchSchema } from "../../src/config/schema.js";

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
export function openTestIndex(
  root: string,
  provider: EmbeddingProvider | null,
  dbPath = join(tempDir("cortexd-db-"), "index.sqlite"),
): TestIndex {
  const store = new IndexStore(openDatabase(dbPath), "test");
  const indexer = new Indexer({ store, target: { root }, provider, chunking: { maxTokens: 400, overlapTokens: 80 } });
  const searcher = new Searcher({ store, provider, config: SearchSchema.parse({}) });
  return { root, dbPath, store, indexer, searcher, close: () => store.close() };
}

export interface IndexedWorkspace {
  root: string;
  dbPath: string;
  store: IndexStore;
  indexer: Indexer;
}

export interface IndexingOptions {
  /** null (the default): keyword only. */
  provider?: EmbeddingProvider | null;
  /** Default 60 tokens, 10 overlapping. */
  chunking?: ChunkingOptions;
  /** The store's name (default "t"). */
  name?: string;
}

function indexerFor(store: IndexStore, root: string, opts: IndexingOptions): Indexer {
  const chunking = opts.chunking ?? { maxTokens: 60, overlapTokens: 10 };
  return new Indexer({ store, target: { root }, provider: opts.provider ?? null, chunking });
}

/**
 * `files` written under a fresh root and indexed once by a fresh IndexStore + Indexer, over a
 * SQLite file (i.sqlite) in another temp dir.
 */
export async function indexedWorkspace(
  files: Record<string, string>,
  opts: IndexingOptions = {},
): Promise<IndexedWorkspace> {
  const root = tempDir();
  writeFiles(root, files);
  const dbPath = join(tempDir(), "i.sqlite");
  const store = new IndexStore(openDatabase(dbPath), opts.name ?? "t");
  const indexer = indexerFor(store, root, opts);
  await indexer.sync();
  return { root, dbPath, store, indexer };
}

/** Syncs `root` into the index at `dbPath` from another connection (as another process would), then closes it. */
export async function syncFromAnotherConnection(
  root: string,
  dbPath: string,
  opts: IndexingOptions = {},
): Promise<void> {
  const other = new IndexStore(openDatabase(dbPath), opts.name ?? "t");
  try {
    await indexerFor(other, root, opts).sync();
  } finally {
    other.close();
  }
}

/** Everything the index holds, without row ids or timestamps (shared with the crash stress script). */
export { dumpIndex } from "../../scripts/bench/index-dump.js";

/** Keyword-only indexes of temp workspaces, built and synced on demand and closed after each test. */
export function indexesPerTest(): (files: Record<string, string>) => Promise<TestIndex> {
  const open: TestIndex[] = [];
  afterEach(() => {
    for (const t of open.splice(0)) t.close();
  });
  return async (files) => {
    const root = tempDir();
    writeFiles(root, files);
    const t = openTestIndex(root, null);
    open.push(t);
    await t.indexer.sync();
    return t;
  };
}
