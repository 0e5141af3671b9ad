import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/index/db/db.js";
import { IndexStore } from "../src/index/repos/store.js";
import { MEMORY_MATRIX_MAX_BYTES } from "../src/index/vectors/vector-repo.js";
import { matrixBytesPerVector, VectorMatrix } from "../src/index/vectors/vector-matrix.js";
import { mulberry32 } from "../src/util/prng.js";
import { chunksFor } from "./helpers/vector-store.js";

function unitVectors(n: number, dims: number, seed: number): Float32Array[] {
  const r = mulberry32(seed);
  return Array.from({ length: n }, () => {
    const v = Float32Array.from({ length: dims }, () => r() - 0.5);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
}

/** A store of `n` vectors of `dims` dims whose in-memory matrix may hold `maxBytes`. */
function storeOf(n: number, dims: number, maxBytes: number): { store: IndexStore; vs: Float32Array[] } {
  const store = new IndexStore(openDatabase(":memory:"), "t", Date.now, maxBytes);
  store.useVectorIdentity({ identity: "test-identity", dims, model: "test" });
  const vs = unitVectors(n, dims, dims);
  store.replaceFile({ path: "memory/a.md", class: "daily", size: 1, mtimeMs: 1, sha256: "a" }, chunksFor(vs, 0));
  return { store, vs };
}

describe("the in-memory vector matrix's bound is in bytes", () => {
  it("a vector costs what the matrix holds for it; the default bound is 150,000 vectors of 100 dims, far fewer of 1,024", () => {
    for (const dims of [100, 384, 1024]) {
      const n = 2000;
      const m = new VectorMatrix(dims, n);
      unitVectors(n, dims, 7).forEach((v, i) => m.set(i + 1, v));
      // What the matrix reports holding, per vector, less WebAssembly's page rounding (64 KiB).
      expect(Math.abs(m.bytes / n - matrixBytesPerVector(dims))).toBeLessThan(65_536 / n + 1);
    }
    expect(Math.floor(MEMORY_MATRIX_MAX_BYTES / matrixBytesPerVector(100))).toBe(150_000);
    // 150,000 vectors of 1,024 dims would be ~770 MB: the bound holds ~15,700 of them.
    expect(150_000 * matrixBytesPerVector(1024)).toBeGreaterThan(700e6);
    expect(Math.floor(MEMORY_MATRIX_MAX_BYTES / matrixBytesPerVector(1024))).toBeLessThan(16_000);
  });

  it("the same number of vectors is held in memory when small and scanned as codes when large", () => {
    const n = 300;
    const maxBytes = n * matrixBytesPerVector(64);
    const small = storeOf(n, 64, maxBytes);
    const large = storeOf(n, 256, maxBytes);
    for (const { store, vs } of [small, large]) {
      const hits = store.vectorSearch(vs[5]!, 3);
      expect(hits[0]!.id).toBe(store.vectorSearch(vs[5]!, 3, { path: "exact" })[0]!.id);
    }
    expect(small.store.vectors.memoryUse?.vectors).toBe(n);
    expect(large.store.vectors.memoryUse).toBeNull();
    // One vector more than the bound: the small one is no longer held either.
    const over = storeOf(n + 1, 64, maxBytes);
    over.store.vectorSearch(over.vs[0]!, 3);
    expect(over.store.vectors.memoryUse).toBeNull();
    for (const s of [small, large, over]) s.store.close();
  });
});
