import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SLICE_CHUNKS } from "../src/indexer/write-slices.js";
import { openTestIndex, tempDir, writeFiles } from "./helpers/workspace.js";

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
