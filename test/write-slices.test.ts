import Database from "better-sqlite3";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/index/db/db.js";
import { SLICE_CHUNKS } from "../src/indexer/write-slices.js";
import { dumpIndex, openTestIndex, tempDir, writeFiles } from "./helpers/workspace.js";

/**
 * A file of many chunks is written in slices of SLICE_CHUNKS, one transaction each (indexer/write-slices.ts):
 * the index it leaves, after the file is created, grown, rewritten shorter and longer, equals a clean
 * build from the same file, row for row, and the file's words are found.
 */
const note = (n: number, tag: string) =>
  Array.from(
    { length: n },
    (_, i) => `## Part ${i}\n\n${`${tag} plover${i % 7} dunlin sanderling `.repeat(60)}\n`,
  ).join("\n");

function rows(root: string, dbDir: string) {
  const idx = openTestIndex(root, null, join(dbDir, "clean.sqlite"));
  return idx;
}

describe("a file of many chunks is written in slices", () => {
  it("creates, grows, shrinks and rewrites it to the same index as a clean build", async () => {
    const root = tempDir();
    writeFiles(root, { "MEMORY.md": "# Memory\n", "memory/big.md": "" });
    const idx = openTestIndex(root, null);
    const path = join(root, "memory", "big.md");
    for (const [n, tag] of [
      [3 * SLICE_CHUNKS, "heron"],
      [4 * SLICE_CHUNKS, "heron"],
      [SLICE_CHUNKS / 2, "kestrel"],
      [3 * SLICE_CHUNKS, "osprey"],
    ] as const) {
      writeFileSync(path, note(n, tag));
      const r = await idx.indexer.sync();
      expect(r.chunksWritten).toBeGreaterThan(0);
      const clean = rows(root, tempDir());
      await clean.indexer.sync();
      const strip = (i: typeof idx) =>
        i.store.chunksOfFile("memory/big.md").map((c) => `${c.startLine}-${c.endLine} ${c.text}`);
      expect(strip(idx)).toEqual(strip(clean));
      expect(strip(idx).length).toBeGreaterThan(n / 2);
      expect(idx.store.getFile("memory/big.md")!.sha256).toBe(clean.store.getFile("memory/big.md")!.sha256);
      expect(idx.store.getFile("memory/big.md")!.size).toBe(clean.store.getFile("memory/big.md")!.size);
      const hits = await idx.searcher.search({ query: `${tag} sanderling` });
      expect(hits.results[0]?.path).toBe("memory/big.md");
      clean.close();
    }
    idx.close();
  });
});

/**
 * While `sync` runs, reads the file's chunk count from another connection at every turn of the event
 * loop: the counts seen between the first and the last (a sync in one transaction shows none).
 */
async function countsDuring(dbPath: string, path: string, sync: () => Promise<unknown>): Promise<number[]> {
  const other = new Database(dbPath, { readonly: true });
  const count = other.prepare(
    `SELECT count(c.id) AS n FROM files f LEFT JOIN chunks c ON c.file_id = f.id WHERE f.path = ? GROUP BY f.id`,
  );
  const seen: number[] = [];
  let done = false;
  const watch = () => {
    const row = count.get(path) as { n: number } | undefined;
    if (row) seen.push(row.n);
    if (!done) setImmediate(watch);
  };
  setImmediate(watch);
  try {
    await sync();
  } finally {
    done = true;
    await new Promise((r) => setImmediate(r));
    other.close();
  }
  return seen;
}

describe("a file of many chunks is removed in slices", () => {
  for (const [how, change] of [
    ["deleted", (path: string) => rmSync(path)],
    ["turned binary (skipped, so it leaves the index)", (path: string) => writeFileSync(path, Buffer.alloc(4096, 0))],
    ["truncated, synced with force", (path: string) => writeFileSync(path, note(1, "kestrel"))],
  ] as const) {
    it(`${how}: other connections see it shrink slice by slice, and the index equals a clean build`, async () => {
      const root = tempDir();
      writeFiles(root, { "MEMORY.md": "# Memory\n", "memory/big.md": note(6 * SLICE_CHUNKS, "heron") });
      const idx = openTestIndex(root, null);
      await idx.indexer.sync();
      const before = idx.store.chunksOfFile("memory/big.md").length;
      expect(before).toBeGreaterThan(4 * SLICE_CHUNKS);
      change(join(root, "memory", "big.md"));
      const force = how.includes("force");
      const seen = await countsDuring(idx.dbPath, "memory/big.md", () => idx.indexer.sync({ force }));
      const between = seen.filter((n) => n > SLICE_CHUNKS && n < before);
      expect(between.length, JSON.stringify(seen)).toBeGreaterThan(1);

      expect((await idx.searcher.search({ query: "heron" })).results).toEqual([]);
      idx.close();
      const clean = openTestIndex(root, null, join(tempDir(), "clean.sqlite"));
      await clean.indexer.sync();
      clean.close();
      const [a, b] = [openDatabase(idx.dbPath), openDatabase(clean.dbPath)];
      expect(dumpIndex(a.db)).toEqual(dumpIndex(b.db));
      a.db.close();
      b.db.close();
    });
  }
});
