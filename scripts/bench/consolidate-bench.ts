import { join } from "node:path";
import { SearchSchema } from "../../src/config/schema.js";
import { consolidate } from "../../src/consolidate/run.js";
import { summarize } from "../../src/consolidate/report.js";
import { ensureBuiltinModel } from "../../src/embed/builtin/ensure.js";
import { createStaticBertProvider } from "../../src/embed/builtin/fast-provider.js";
import { openDatabase } from "../../src/index/db/db.js";
import { IndexStore } from "../../src/index/repos/store.js";
import { Indexer } from "../../src/indexer/sync.js";
import { recall } from "../../src/search/recall.js";
import { Searcher } from "../../src/search/searcher.js";
import { generateWorkspace, rng, sampleQuery } from "./generate.js";
import { benchPath, fmtMs, freshDir, percentile, type Args } from "./util.js";

/**
 * Consolidation on the generated 2,000-file workspace with the built-in model (in process, as the
 * daemon runs it: one event loop), and search latency measured while it runs (a search every
 * 20 ms) against the same figures with no consolidation running. Target: ≤ 30 s.
 */
export async function benchConsolidate(args: Args): Promise<void> {
  const files = Number(args.flags.files ?? 2000);
  const root = benchPath(`ws-${files}-42`);
  generateWorkspace(root, files, 42, true);
  const provider = await createStaticBertProvider(await ensureBuiltinModel(benchPath("models")));
  const dir = freshDir(benchPath("db-consolidate"));
  const store = new IndexStore(openDatabase(join(dir, "index.sqlite")), "bench");
  const indexer = new Indexer({ store, target: { root }, provider, chunking: { maxTokens: 400, overlapTokens: 80 } });
  let t0 = performance.now();
  const rep = await indexer.sync();
  console.log(
    `indexed ${files} files, ${rep.chunksWritten} chunks (${rep.embedded} embedded) in ${fmtMs(performance.now() - t0)}`,
  );
  const searcher = new Searcher({ store, provider, config: SearchSchema.parse({}) });
  const r = rng(2024);
  const queries = Array.from({ length: 50 }, () => sampleQuery(r));
  // Give the access log something to count: every query recalled 3 times as 3 phrasings.
  for (const q of queries.slice(0, 10))
    for (const suffix of ["", " notes", " today"]) await recall(searcher, store, { query: q + suffix });

  async function searchLoop(stop: () => boolean): Promise<number[]> {
    const lat: number[] = [];
    let i = 0;
    while (!stop()) {
      const t = performance.now();
      await searcher.search({ query: queries[i++ % queries.length]! });
      lat.push(performance.now() - t);
      await new Promise((res) => setTimeout(res, 20));
    }
    return lat;
  }

  // Baseline: searches alone for 3 s.
  const endAt = performance.now() + 3000;
  const idle = await searchLoop(() => performance.now() > endAt);

  let done = false;
  t0 = performance.now();
  const during = searchLoop(() => done);
  const report = await consolidate({ name: "bench", root, store }, { cacheMax: 100_000 });
  const ms = performance.now() - t0;
  done = true;
  const lat = await during;
  console.log(summarize(report));
  console.log(
    `timings: ${JSON.stringify(report.timings)}; entries ${report.entries} (${report.withVectors} with vectors)`,
  );
  console.log(`consolidation: ${fmtMs(ms)} (target ≤ 30 s)`);
  const fmt = (xs: number[]) =>
    `n=${xs.length} p50 ${fmtMs(percentile(xs, 50))} p95 ${fmtMs(percentile(xs, 95))} p99 ${fmtMs(percentile(xs, 99))} max ${fmtMs(Math.max(...xs))}`;
  console.log(`search alone:               ${fmt(idle)}`);
  console.log(`search during consolidation: ${fmt(lat)}`);
  // A second run (tables replaced, nothing new): steady-state cost.
  t0 = performance.now();
  await consolidate({ name: "bench", root, store }, { cacheMax: 100_000 });
  console.log(`second run: ${fmtMs(performance.now() - t0)}`);
  store.close();
  await provider.close();
}
