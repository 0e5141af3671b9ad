import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openTestIndex, tempDir, writeFiles, type TestIndex } from "./helpers/workspace.js";

/**
 * The path stage knows the words of the indexed paths from memory (src/index/keyword/path-index.ts): a file
 * added, renamed or deleted must change which files a query's words boost, on the same connection.
 */

let idx: TestIndex | undefined;
/** Other files, so a word in one path has an idf worth something in BM25 over the paths. */
const FILLER = Object.fromEntries(
  ["garden", "taxes", "recipes", "travel", "books", "music"].map((n) => [`memory/notes/${n}.md`, `- ${n} notes\n`]),
);
afterEach(() => idx?.close());

const pathBoost = async (i: TestIndex, query: string): Promise<Map<string, number>> => {
  const r = await i.searcher.search({ query, explain: true });
  return new Map(r.results.map((h) => [h.path, h.explain?.path ?? 0]));
};

describe("path stage", () => {
  it("follows files added, renamed and deleted after the path words were read", async () => {
    const root = tempDir();
    writeFiles(root, {
      ...FILLER,
      "memory/notes/kayak.md": "- paddle practice on the lake\n",
      "memory/notes/errands.md": "- buy a new paddle for the lake trip\n",
    });
    idx = openTestIndex(root, null);
    await idx.indexer.sync();
    let boost = await pathBoost(idx, "kayak paddle");
    expect(boost.get("memory/notes/kayak.md")).toBeGreaterThan(0);
    expect(boost.get("memory/notes/errands.md")).toBe(0);

    // Renamed: errands.md becomes canoe.md (same text).
    rmSync(join(root, "memory/notes/errands.md"));
    writeFiles(root, { "memory/notes/canoe.md": "- buy a new paddle for the lake trip\n" });
    await idx.indexer.sync();
    boost = await pathBoost(idx, "canoe paddle");
    expect(boost.get("memory/notes/canoe.md")).toBeGreaterThan(0);
    expect(boost.has("memory/notes/errands.md")).toBe(false);

    // Deleted: no file's path holds the word any more, so nothing is boosted by it.
    rmSync(join(root, "memory/notes/kayak.md"));
    await idx.indexer.sync();
    boost = await pathBoost(idx, "kayak paddle");
    expect([...boost.values()].every((v) => v === 0)).toBe(true);
  });

  it("matches path words the in-memory map does not hold as typed (accents, underscores)", async () => {
    const root = tempDir();
    writeFiles(root, {
      ...FILLER,
      "memory/notes/café.md": "- the espresso machine needs descaling\n",
      "memory/notes/home_office.md": "- the espresso cups are in the kitchen\n",
      "memory/notes/misc.md": "- espresso beans from the market\n",
    });
    idx = openTestIndex(root, null);
    await idx.indexer.sync();
    const boost = await pathBoost(idx, "café espresso");
    expect(boost.get("memory/notes/café.md")).toBeGreaterThan(0);
    expect(boost.get("memory/notes/misc.md")).toBe(0);
    const office = await pathBoost(idx, "home_office espresso");
    expect(office.get("memory/notes/home_office.md")).toBeGreaterThan(0);
  });
});
