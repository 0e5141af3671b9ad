import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/index/db/db.js";
import { IndexStore } from "../src/index/repos/store.js";
import { mulberry32 } from "../src/util/prng.js";
import { tempDir } from "./helpers/workspace.js";
import { chunksFor, openVectorStore } from "./helpers/vector-store.js";
import { expectMetaInStep, toldPathIndex } from "./helpers/copies.js";

const DIMS = 16;

function unitVectors(n: number, seed: number): Float32Array[] {
  const r = mulberry32(seed);
  return Array.from({ length: n }, () => {
    const v = Float32Array.from({ length: DIMS }, () => r() - 0.5);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
}

const fileMeta = (path: string) => ({ path, class: "daily" as const, size: 1, mtimeMs: 1, sha256: path });

/** `files` files of 50 chunks each (every seventh with an importance annotation), their vectors from `seed`. */
function fill(store: IndexStore, files: number, seed: number): Float32Array[] {
  const vs = unitVectors(files * 50, seed);
  for (let f = 0; f < files; f++)
    store.replaceFile(
      fileMeta(`memory/f${f}.md`),
      chunksFor(vs.slice(f * 50, f * 50 + 50), f * 50, (n) => `note ${n}${n % 7 ? "" : " <!-- importance: 4 -->"}`),
    );
  return vs;
}

/**
 * Runs `load`, turning the event loop until it is done and calling `meanwhile` on the third turn;
 * returns the turns other work got while it ran.
 */
async function turnsDuring(load: Promise<void>, meanwhile: () => void): Promise<number> {
  let done = false;
  void load.then(() => (done = true));
  let turns = 0;
  while (!done) {
    await new Promise((r) => setImmediate(r));
    if (++turns === 3) meanwhile();
  }
  await load;
  return turns;
}

describe("the daemon's loads of a large index's in-memory copies, in steps", () => {
  it("chunk metadata: other work runs while it reads, and what this connection writes meanwhile is in it at the end", async () => {
    const path = join(tempDir("cortexd-steps-"), "index.sqlite");
    const store = openVectorStore(path, DIMS);
    fill(store, 20, 1);
    const turns = await turnsDuring(store.warmChunkMetaInSteps(0), () => {
      // Mid-load: lookups answer from the rows, and this connection writes.
      expectMetaInStep(store);
      store.replaceFile(
        fileMeta("memory/f1.md"),
        chunksFor(unitVectors(3, 9), 5000, (n) => `edited ${n}`),
      );
      store.deleteFile("memory/f2.md");
      store.replaceFile(
        fileMeta("memory/new.md"),
        chunksFor(unitVectors(4, 10), 6000, (n) => `new ${n}`),
      );
    });
    expect(turns).toBeGreaterThan(20);
    // Loaded: the visibilities of a file's lines answer from memory (null would mean "ask SQL").
    expect(store.chunks.meta.visibilitiesOfSpans([{ path: "memory/new.md", from: 1, to: 9 }])).toHaveLength(1);
    expectMetaInStep(store);
    const paths = new Set([...store.chunkMeta(Array.from({ length: 2000 }, (_, i) => i)).values()].map((m) => m.path));
    expect(paths).toContain("memory/new.md");
    expect(paths).not.toContain("memory/f2.md");
    store.close();
  });

  it("chunk metadata: another connection's commit during the load is in it at the end", async () => {
    const path = join(tempDir("cortexd-steps-"), "index.sqlite");
    const store = openVectorStore(path, DIMS);
    fill(store, 20, 2);
    const other = new IndexStore(openDatabase(path), "other");
    await turnsDuring(store.warmChunkMetaInSteps(0), () => {
      other.deleteFile("memory/f3.md");
      other.replaceFile(
        fileMeta("memory/other.md"),
        chunksFor(unitVectors(2, 11), 7000, (n) => `other ${n}`),
      );
    });
    expectMetaInStep(store);
    other.close();
    store.close();
  });

  it("quantized codes: other work runs while they are read, and vectors written meanwhile are found, deleted ones never", async () => {
    const path = join(tempDir("cortexd-steps-"), "index.sqlite");
    const first = openVectorStore(path, DIMS, 1);
    const vs = fill(first, 40, 3);
    first.prepareVectorCodes(); // the quantizer fitted and the codes written, as a large index has them
    first.close();
    const store = new IndexStore(openDatabase(path), "t", Date.now, 1);
    const added = unitVectors(5, 12);
    const deleted = new Set(store.chunksOfFile("memory/f4.md").map((c) => c.id));
    expect(deleted.size).toBe(50);
    const turns = await turnsDuring(store.warmVectorSearch(0), () => {
      store.deleteFile("memory/f4.md");
      store.replaceFile(fileMeta("memory/added.md"), chunksFor(added, 9000));
    });
    expect(turns).toBeGreaterThan(20);
    for (const v of added) expect(store.vectorSearch(v, 1, { path: "quantized" })[0]!.distance).toBeCloseTo(0, 5);
    for (const v of vs.slice(200, 250)) {
      const hits = store.vectorSearch(v, 10, { path: "quantized" });
      expect(hits.some((h) => deleted.has(h.id))).toBe(false);
    }
    expect(store.vectorSearch(vs[1000]!, 1, { path: "quantized" })[0]!.distance).toBeCloseTo(0, 5);
    store.close();
  });
  it("path index: read in steps, and a file added here meanwhile is followed", async () => {
    const path = join(tempDir("cortexd-steps-"), "index.sqlite");
    const store = openVectorStore(path, DIMS);
    for (let f = 0; f < 150; f++)
      store.replaceFile(fileMeta(`memory/team-${f % 7}/notes-${f}-kafka.md`), chunksFor(unitVectors(1, f), f));
    const idx = toldPathIndex(store);
    const turns = await turnsDuring(idx.warmInSteps(0), () => {
      store.replaceFile(fileMeta("memory/added-kafka-retro.md"), chunksFor(unitVectors(1, 99), 999));
    });
    expect(turns).toBeGreaterThan(3);
    expect(idx.reads).toBe(1);
    const fts = store.pathSearch(`"retro" OR "kafka"`, 10_000).sort((a, b) => a.rank - b.rank || a.fileId - b.fileId);
    expect(idx.search(["retro", "kafka"], 10_000)!.map((h) => h.fileId)).toEqual(fts.map((h) => h.fileId));
    expect(idx.filesWith("retro")).toBe(1);
    expect(idx.reads).toBe(1);
    store.close();
  });
});
