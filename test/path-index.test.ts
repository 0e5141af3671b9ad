import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { PathIndex } from "../src/index/keyword/path-index.js";
import { IndexStore } from "../src/index/repos/store.js";
import { indexedWorkspace, syncFromAnotherConnection } from "./helpers/workspace.js";
import { rawDb } from "./helpers/raw-db.js";
import { toldPathIndex } from "./helpers/copies.js";

const WORDS = ["kafka", "deploy", "notes", "2026", "budget", "retro", "garden", "team", "q3", "infra"];

function randomPaths(seed: number, n: number): string[] {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const word = () => WORDS[Math.floor(rnd() * WORDS.length)]!;
  const out = new Set<string>();
  while (out.size < n) {
    const parts = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () =>
      Array.from({ length: 1 + Math.floor(rnd() * 3) }, word).join(rnd() < 0.5 ? "-" : "_"),
    );
    out.add(`memory/${parts.join("/")}.md`);
  }
  return [...out];
}

/** The in-memory ranking must be FTS5's: the same files, the same bm25 ranks, in order. */
function expectLikeFts(store: IndexStore, words: string[]): void {
  const q = words.map((w) => `"${w}"`).join(" OR ");
  const fts = store.pathSearch(q, 10_000).sort((a, b) => a.rank - b.rank || a.fileId - b.fileId);
  const mem = store.pathSearchWords(words, 10_000);
  expect(mem).not.toBeNull();
  expect(mem!.map((h) => h.fileId)).toEqual(fts.map((h) => h.fileId));
  mem!.forEach((h, i) => expect(h.rank).toBeCloseTo(fts[i]!.rank, 12));
  // A limit keeps the best.
  expect(store.pathSearchWords(words, 3)!.map((h) => h.rank)).toEqual(mem!.slice(0, 3).map((h) => h.rank));
}

describe("path index in memory", () => {
  it("ranks files as FTS5's bm25 over paths does, and follows renames, new and deleted files", async () => {
    const paths = randomPaths(11, 60);
    const { root, dbPath, store, indexer } = await indexedWorkspace(
      Object.fromEntries(paths.map((p) => [p, "- a line\n"])),
    );
    const queries = [
      ["kafka"],
      ["deploy", "notes"],
      ["q3", "infra", "team"],
      ["2026", "memory"],
      ["garden", "nothere"],
    ];
    for (const words of queries) expectLikeFts(store, words);
    rmSync(join(root, paths[0]!));
    renameSync(join(root, paths[1]!), join(root, "memory/kafka-kafka-moved.md"));
    mkdirSync(dirname(join(root, "memory/x/infra.md")), { recursive: true });
    writeFileSync(join(root, "memory/x/infra.md"), "- new\n");
    await indexer.sync();
    for (const words of queries) expectLikeFts(store, words);
    expectLikeFts(store, ["moved", "kafka"]);
    expect(store.pathSearchWords(["moved"], 5)!.map((h) => h.fileId)).toEqual([
      store.getFile("memory/kafka-kafka-moved.md")!.id,
    ]);
    // Another connection (as another process would) renames a file: followed too.
    renameSync(join(root, "memory/kafka-kafka-moved.md"), join(root, "memory/garden-retro.md"));
    await syncFromAnotherConnection(root, dbPath);
    for (const words of [...queries, ["moved"]]) expectLikeFts(store, words);
    expect(store.pathFilesWith("moved")).toBe(0);
    expect(store.pathFilesWith("kafka")).toBe(store.pathSearch(`"kafka"`, 10_000).length);
    // Words that are not one lowercase ASCII token are left to FTS5.
    expect(store.pathSearchWords(["café"], 10)).toBeNull();
    store.close();
  });

  it("past its cap of path tokens it still counts each word's files (not past its cap of words)", async () => {
    const paths = randomPaths(5, 40);
    const { root, dbPath, store } = await indexedWorkspace(Object.fromEntries(paths.map((p) => [p, "- a line\n"])));
    const counts = new PathIndex(rawDb(store), { maxInstances: 3 });
    const none = new PathIndex(rawDb(store), { maxInstances: 3, maxTerms: 2 });
    const expectCounts = () => {
      for (const w of [...WORDS, "memory", "moved", "absent"]) {
        expect(counts.filesWith(w)).toBe(store.pathSearch(`"${w}"`, 10_000).length);
        expect(none.filesWith(w)).toBeNull();
      }
      expect(counts.search(["kafka"], 10)).toBeNull(); // ranking is FTS5's then
      expect(counts.filesWith("café")).toBeNull();
    };
    expectCounts();
    renameSync(join(root, paths[0]!), join(root, "memory/moved-kafka.md"));
    rmSync(join(root, paths[1]!));
    await syncFromAnotherConnection(root, dbPath);
    expectCounts();
    expect(counts.filesWith("moved")).toBe(1);
    store.close();
  });
  it("follows files added, renamed and deleted here without reading the index again, as FTS5 ranks them, a path FTS5 folds included", async () => {
    const paths = randomPaths(21, 50);
    const { root, store, indexer } = await indexedWorkspace(Object.fromEntries(paths.map((p) => [p, "- a line\n"])));
    // A path index told of this connection's writes, as the store's own is.
    const idx = toldPathIndex(store);
    const expectSame = () => {
      for (const words of [
        ["kafka"],
        ["deploy", "notes"],
        ["q3", "infra", "team"],
        ["2026", "md"],
        ["moved", "retro"],
      ]) {
        const q = words.map((w) => `"${w}"`).join(" OR ");
        const fts = store.pathSearch(q, 10_000).sort((a, b) => a.rank - b.rank || a.fileId - b.fileId);
        const mem = idx.search(words, 10_000)!;
        expect(mem.map((h) => h.fileId)).toEqual(fts.map((h) => h.fileId));
        mem.forEach((h, i) => expect(h.rank).toBeCloseTo(fts[i]!.rank, 12));
        for (const w of words) expect(idx.filesWith(w)).toBe(store.pathSearch(`"${w}"`, 10_000).length);
      }
    };
    expectSame();
    expect(idx.reads).toBe(1);
    let s = 5;
    const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
    const live = new Set(paths);
    for (let round = 0; round < 6; round++) {
      for (const p of [...live]) {
        const r = rnd();
        if (r < 0.1) {
          rmSync(join(root, p));
          live.delete(p);
        } else if (r < 0.2) {
          const to = `memory/Moved_${round}/Retro-${round}-${live.size}.MD.md`;
          mkdirSync(dirname(join(root, to)), { recursive: true });
          renameSync(join(root, p), join(root, to));
          live.delete(p);
          live.add(to);
        }
      }
      const added = `memory/new/kafka-q3-${round}-kafka.md`;
      mkdirSync(dirname(join(root, added)), { recursive: true });
      writeFileSync(join(root, added), "- new\n");
      live.add(added);
      await indexer.sync();
      expectSame();
    }
    expect(idx.reads).toBe(1);
    // The paths' tokens are FTS5's own: a path unicode61 folds ("café" → "cafe") is followed too.
    writeFileSync(join(root, "memory/café-kafka.md"), "- new\n");
    await indexer.sync();
    expectSame();
    expect(idx.filesWith("cafe")).toBe(1);
    expect(idx.filesWith("cafe")).toBe(store.pathSearch(`"cafe"`, 10_000).length);
    expect(idx.reads).toBe(1);
    store.close();
  });
});
