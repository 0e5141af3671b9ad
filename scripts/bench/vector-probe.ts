import { readdirSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../../src/index/db/db.js";
import { IndexStore } from "../../src/index/repos/store.js";
import { benchPath, fmtMs, median, percentile, type Args } from "./util.js";
import { rng, sampleQuery } from "./generate.js";

export interface VectorProbe {
  vectors: number;
  k: number;
  exact: { p50: number; p95: number };
  /** The in-memory matrix (the default path up to MEMORY_MATRIX_MAX): latency, MB held, queries whose result differs from sqlite-vec's. */
  memory?: { p50: number; p95: number; mb: number; differing: number };
  quantized?: { p50: number; p95: number; overlapAt10: number; overlapAtK: number };
}

/**
 * Times the vector leg on a built index: sqlite-vec's exact KNN and (when the store has it) the
 * quantized coarse scan with exact rescoring, and how much of the exact top 10 (and top k) the
 * quantized path returns (overlap@10: the recall cost of quantization).
 */
export async function vectorProbe(indexDir: string, queries: string[], k = 24): Promise<VectorProbe> {
  const file = readdirSync(indexDir).find((f) => f.endsWith(".sqlite"));
  if (!file) throw new Error(`no index in ${indexDir}`);
  const store = new IndexStore(openDatabase(join(indexDir, file)), "probe");
  const { ensureBuiltinModel } = await import("../../src/embed/builtin/ensure.js");
  const { createStaticBertProvider } = await import("../../src/embed/builtin/fast-provider.js");
  const provider = await createStaticBertProvider(await ensureBuiltinModel(benchPath("models")));
  try {
    store.useVectorIdentity({ identity: provider.identity, dims: provider.dims, model: provider.modelName });
    const vecs = (await provider.embedBatch(queries)).filter((v): v is Float32Array => v !== null);
    const vectors = store.counts().vectors;
    const exactLat: number[] = [];
    const exactIds: number[][] = [];
    for (const v of vecs) {
      const t = performance.now();
      const hits = store.vectorSearch(v, k, { path: "exact" });
      exactLat.push(performance.now() - t);
      exactIds.push(hits.map((h) => h.id));
    }
    const out: VectorProbe = { vectors, k, exact: { p50: median(exactLat), p95: percentile(exactLat, 95) } };
    console.log(
      `  vector KNN, exact (sqlite-vec float, k=${k}, ${vectors} vectors): p50 ${fmtMs(out.exact.p50)}, p95 ${fmtMs(out.exact.p95)}`,
    );
    if (store.supportsQuantized) {
      const loadStart = performance.now();
      store.vectorSearch(vecs[0]!, k, { path: "memory" }); // loads the matrix
      const loadMs = performance.now() - loadStart;
      const mLat: number[] = [];
      let differing = 0;
      vecs.forEach((v, i) => {
        const t = performance.now();
        const hits = store.vectorSearch(v, k, { path: "memory" });
        mLat.push(performance.now() - t);
        const ex = exactIds[i]!;
        if (hits.length !== ex.length || hits.some((h, j) => h.id !== ex[j])) differing++;
      });
      const mb = (store.vectors.memoryUse?.bytes ?? 0) / 1e6;
      out.memory = { p50: median(mLat), p95: percentile(mLat, 95), mb, differing };
      console.log(
        `  vector KNN, in memory (${mb.toFixed(1)} MB, loaded in ${fmtMs(loadMs)}): p50 ${fmtMs(out.memory.p50)}, p95 ${fmtMs(out.memory.p95)}; ` +
          `${differing} of ${vecs.length} queries list other ids than sqlite-vec (or equal distances in another order)`,
      );
      store.vectorSearch(vecs[0]!, k, { path: "quantized" }); // loads the codes
      const qLat: number[] = [];
      let o10 = 0;
      let ok = 0;
      vecs.forEach((v, i) => {
        const t = performance.now();
        const hits = store.vectorSearch(v, k, { path: "quantized" });
        qLat.push(performance.now() - t);
        const ids = new Set(hits.map((h) => h.id));
        const ex = exactIds[i]!;
        o10 += ex.slice(0, 10).filter((id) => ids.has(id)).length / Math.max(1, Math.min(10, ex.length));
        ok += ex.filter((id) => ids.has(id)).length / Math.max(1, ex.length);
      });
      out.quantized = {
        p50: median(qLat),
        p95: percentile(qLat, 95),
        overlapAt10: o10 / vecs.length,
        overlapAtK: ok / vecs.length,
      };
      console.log(
        `  vector KNN, quantized + rescoring: p50 ${fmtMs(out.quantized.p50)}, p95 ${fmtMs(out.quantized.p95)}; ` +
          `overlap with exact: @10 ${out.quantized.overlapAt10.toFixed(3)}, @${k} ${out.quantized.overlapAtK.toFixed(3)} (${vecs.length} queries)`,
      );
    }
    return out;
  } finally {
    store.close();
    await provider.close();
  }
}

/** `npm run bench -- vectors --index <dir with the .sqlite>`: the probe alone on an existing index. */
export async function benchVectors(args: Args): Promise<void> {
  const dir = String(args.flags.index ?? "");
  if (!dir)
    throw new Error(
      "--index <directory holding the index .sqlite> is required (e.g. .bench/home-scale-10000-hybrid/data/cortexd/indexes)",
    );
  const r = rng(2024);
  await vectorProbe(
    dir,
    Array.from({ length: Number(args.flags.queries ?? 200) }, () => sampleQuery(r)),
    Number(args.flags.k ?? 24),
  );
}
