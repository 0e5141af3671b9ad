import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLocalProvider } from "../src/embed/local-provider.js";
import type { EmbeddingProvider } from "../src/embed/provider.js";
import { counting, otherModelPath, tinyProvider } from "./helpers/models.js";
import { dumpIndex, openTestIndex, tempDir, writeFiles } from "./helpers/workspace.js";
import { rawDb } from "./helpers/raw-db.js";

const para = (topic: string, i: number) =>
  `## ${topic} ${i}\n\n${Array.from({ length: 12 }, (_, j) => `The ${topic} notes line ${j} of part ${i} about the deploy and the build server and our pipeline.`).join(" ")}\n`;

let tiny: EmbeddingProvider;
beforeAll(async () => {
  tiny = await tinyProvider();
});
afterAll(async () => {
  await tiny.close();
});

describe("incremental sync with the real test model", () => {
  it("embeds every chunk once; an unchanged re-sync embeds nothing", async () => {
    const root = tempDir();
    writeFiles(root, {
      "MEMORY.md": "# Memory\n\n- The deploy runs on the build server.\n- Sam bakes bread on Sundays.\n",
      "memory/2026-11-01.md": [1, 2, 3, 4, 5].map((i) => para("deploy", i)).join("\n"),
    });
    const p = counting(tiny);
    const idx = openTestIndex(root, p);
    const first = await idx.indexer.sync();
    const counts = idx.store.counts();
    expect(counts.vectors + counts.noVector).toBe(counts.chunks);
    expect(counts.pending).toBe(0);
    expect(first.embedded).toBe(p.calls.length);
    p.calls.length = 0;
    const second = await idx.indexer.sync();
    expect(second.embedded).toBe(0);
    expect(p.calls).toEqual([]);
    const res = await idx.searcher.search({ query: "our CI pipeline broke" });
    expect(res.mode).toBe("hybrid");
    expect(res.results[0]!.vectorScore).toBeGreaterThan(0.5);
    idx.close();
  });

  it("editing one paragraph re-embeds only the affected chunks", async () => {
    const root = tempDir();
    const file = join(root, "memory/2026-11-02.md");
    writeFiles(root, { "memory/2026-11-02.md": [1, 2, 3, 4, 5, 6, 7, 8].map((i) => para("bread", i)).join("\n") });
    const p = counting(tiny);
    const idx = openTestIndex(root, p);
    await idx.indexer.sync();
    const chunks = idx.store.counts().chunks;
    expect(chunks).toBeGreaterThanOrEqual(4);
    p.calls.length = 0;
    const text = readFileSync(file, "utf8").replace(
      "bread notes line 3 of part 5",
      "bread notes line 3 of part 5 EDITED oven flour",
    );
    writeFileSync(file, text);
    const r = await idx.indexer.sync();
    expect(r.changed).toBe(1);
    expect(r.embedded).toBeGreaterThanOrEqual(1);
    expect(r.embedded).toBeLessThanOrEqual(2); // the edited chunk (and the overlap neighbour at most)
    expect(p.calls.every((t) => t.includes("EDITED"))).toBe(true);
    idx.close();
  });

  it("rename re-embeds nothing; delete removes vectors", async () => {
    const root = tempDir();
    writeFiles(root, { "memory/a.md": para("travel", 1) + para("travel", 2), "memory/b.md": para("music", 1) });
    const p = counting(tiny);
    const idx = openTestIndex(root, p);
    await idx.indexer.sync();
    const before = idx.store.counts();
    p.calls.length = 0;
    renameSync(join(root, "memory/a.md"), join(root, "memory/renamed.md"));
    const r = await idx.indexer.sync();
    expect(r).toMatchObject({ renamed: 1, embedded: 0 });
    expect(p.calls).toEqual([]);
    expect(idx.store.counts().vectors).toBe(before.vectors);
    rmSync(join(root, "memory/b.md"));
    await idx.indexer.sync();
    const after = idx.store.counts();
    expect(after.chunks).toBeLessThan(before.chunks);
    expect((rawDb(idx.store).prepare(`SELECT count(*) AS n FROM chunks_vec`).get() as { n: number }).n).toBe(
      after.vectors,
    );
    idx.close();
  });

  it("detects a model change, re-embeds through the cache, and switching back costs nothing", async () => {
    const root = tempDir();
    writeFiles(root, { "memory/x.md": para("health", 1) + para("family", 2) });
    const dbPath = join(tempDir(), "index.sqlite");
    const idx1 = openTestIndex(root, tiny, dbPath);
    await idx1.indexer.sync();
    idx1.close();
    const other = counting(await createLocalProvider({ model: await otherModelPath(tempDir()), threads: 1 }));
    const idx2 = openTestIndex(root, other, dbPath);
    const r = await idx2.indexer.sync();
    expect(r.modelChanged).toEqual({ from: tiny.identity, to: other.identity });
    expect(r.embedded).toBeGreaterThan(0);
    expect(idx2.store.getVectorIdentity()).toMatchObject({ identity: other.identity, dims: 16 });
    expect(idx2.store.counts().pending).toBe(0);
    idx2.close();
    await other.close();
    const back = counting(tiny);
    const idx3 = openTestIndex(root, back, dbPath);
    const r3 = await idx3.indexer.sync();
    expect(r3.modelChanged?.to).toBe(tiny.identity);
    expect(r3.embedded).toBe(0); // every vector came back from the cache
    expect(r3.cacheHits).toBeGreaterThan(0);
    const clean = openTestIndex(root, tiny);
    await clean.indexer.sync();
    expect(dumpIndex(rawDb(idx3.store))).toEqual(dumpIndex(rawDb(clean.store)));
    idx3.close();
    clean.close();
  });

  it("keyword-only chunks get vectors once a model is available (backfill)", async () => {
    const root = tempDir();
    writeFiles(root, { "memory/y.md": para("finance", 1) });
    const dbPath = join(tempDir(), "index.sqlite");
    const k = openTestIndex(root, null, dbPath);
    await k.indexer.sync();
    expect(k.store.counts().vectors).toBe(0);
    k.close();
    const v = openTestIndex(root, tiny, dbPath);
    const r = await v.indexer.sync();
    expect(r.embedded).toBeGreaterThan(0);
    expect(v.store.counts()).toMatchObject({ pending: 0 });
    expect(v.store.counts().vectors).toBeGreaterThan(0);
    v.close();
  });

  it("text with only unknown words is stored without a vector, never a zero vector", async () => {
    const root = tempDir();
    writeFiles(root, { "memory/z.md": "# 2026\n\nxqzv 12345 blorpt\n" });
    const idx = openTestIndex(root, tiny);
    const r = await idx.indexer.sync();
    expect(r.noVector).toBe(1);
    expect(idx.store.counts()).toMatchObject({ chunks: 1, vectors: 0, noVector: 1, pending: 0 });
    expect((await idx.searcher.search({ query: "blorpt" })).results).toHaveLength(1);
    idx.close();
  });
});
