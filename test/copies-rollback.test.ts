import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/index/db/db.js";
import { IndexStore } from "../src/index/repos/store.js";
import { tempDir } from "./helpers/workspace.js";
import { chunksFor, openVectorStore } from "./helpers/vector-store.js";

const DIMS = 8;
const unit = (i: number) => Float32Array.from({ length: DIMS }, (_, d) => (d === i % DIMS ? 1 : 0.01 * (d + 1)));
const meta = (path: string, date: string) => ({
  path,
  class: "daily" as const,
  date,
  size: 1,
  mtimeMs: 1,
  sha256: path,
});

/** What a search reads from the store's in-memory copies (chunk metadata, vectors, word statistics, dates). */
function answers(store: IndexStore, ids: number[]) {
  return {
    meta: [...store.chunkMeta(ids)].sort((a, b) => a[0] - b[0]),
    nearest: store.vectorSearch(unit(3), 4),
    words: store.termStats(["zulu", "alpha"]),
    days: store.memoryDays(),
    paths: store.pathFilesWith("zulu"),
  };
}

describe("the in-memory copies after a rolled-back transaction", () => {
  it("hold nothing of what the transaction wrote, though it was read inside it", () => {
    const path = join(tempDir("cortexd-copies-"), "index.sqlite");
    const store = openVectorStore(path, DIMS);
    store.replaceFile(
      meta("memory/2026-01-01.md", "2026-01-01"),
      chunksFor([unit(0), unit(1)], 0, (n) => `alpha bravo ${n}`),
    );
    const ids = Array.from({ length: 8 }, (_, i) => i + 1);
    // Loaded (and read) before the transaction, as a daemon's are.
    for (let i = 0; i < 3; i++) answers(store, ids);
    store.warmChunkMeta();

    expect(() =>
      store.transaction(() => {
        store.replaceFile(
          meta("memory/zulu/2026-02-02.md", "2026-02-02"),
          chunksFor([unit(3), unit(3)], 10, (n) => `zulu yankee ${n}`),
        );
        // A read inside the transaction sees its writes (and a copy may take them in).
        const inside = answers(store, ids);
        expect(inside.nearest.length).toBeGreaterThan(2);
        throw new Error("disk full");
      }),
    ).toThrow("disk full");

    const fresh = new IndexStore(openDatabase(path), "fresh");
    expect(answers(store, ids)).toEqual(answers(fresh, ids));
    expect(store.chunkMeta(ids).size).toBe(2);
    fresh.close();
    store.close();
  });
});
