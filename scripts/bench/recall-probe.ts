import { existsSync, rmSync } from "node:fs";
import { SearchSchema } from "../../src/config/schema.js";
import { openDatabase } from "../../src/index/db/db.js";
import { IndexStore } from "../../src/index/repos/store.js";
import { Indexer } from "../../src/indexer/sync.js";
import { recall } from "../../src/search/recall.js";
import { Searcher } from "../../src/search/searcher.js";
import { randomQueries } from "./corpus-queries.js";
import { generateWorkspace } from "./generate.js";
import { generateNotesWorkspace } from "./generate-notes.js";
import { benchPath, fmtMs, median, percentile, type Args } from "./util.js";

/**
 * In-process hybrid search and recall on a generated workspace (no socket): per-stage medians, for
 * profiling the hybrid and recall paths (`node --cpu-prof dist/scripts/bench/main.js recall-probe`).
 * The index is kept between runs (`--fresh` rebuilds it).
 */
export async function recallProbe(args: Args): Promise<void> {
  const corpus = String(args.flags.corpus ?? "notes");
  const files = Number(args.flags.files ?? 2000);
  const n = Number(args.flags.queries ?? 300);
  const seed = Number(args.flags.seed ?? 1301);
  const root = benchPath(`probe-${corpus}-${files}`);
  const dbPath = benchPath(`probe-${corpus}-${files}.sqlite`);
  const fresh = !!args.flags.fresh || !existsSync(dbPath);
  if (fresh) {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(dbPath + suffix, { force: true });
    if (corpus === "daily") generateWorkspace(root, files);
    else generateNotesWorkspace(root, files);
  }
  const { ensureBuiltinModel } = await import("../../src/embed/builtin/ensure.js");
  const { createStaticBertProvider } = await import("../../src/embed/builtin/fast-provider.js");
  const provider = await createStaticBertProvider(await ensureBuiltinModel(benchPath("models")));
  const store = new IndexStore(openDatabase(dbPath), "probe");
  const indexer = new Indexer({ store, target: { root }, provider, chunking: { maxTokens: 400, overlapTokens: 80 } });
  const t0 = performance.now();
  await indexer.sync();
  console.log(`index ${fresh ? "cold" : "sync"}: ${fmtMs(performance.now() - t0)}, ${store.counts().chunks} chunks`);
  // As the daemon serves: postings, chunk metadata and vectors in memory.
  store.keepKeywordsInMemory();
  await store.text.postings.ready();
  store.warmChunkMeta();
  store.warmVectorSearch();
  const searcher = new Searcher({ store, provider, config: SearchSchema.parse({}) });
  const queries = randomQueries(root, n * 2, seed);
  const stages = new Map<string, number[]>();
  const add = (name: string, ms: number) => {
    let xs = stages.get(name);
    if (!xs) stages.set(name, (xs = []));
    xs.push(ms);
  };
  const tail = Number(args.flags.tail ?? 0);
  const run = async (kind: "hybrid" | "recall", qs: string[]) => {
    const wall: number[] = [];
    const perQuery: { q: string; ms: number; cpu: number; timings: Record<string, number> }[] = [];
    for (const q of qs) {
      const t = performance.now();
      const c = process.cpuUsage();
      const timings =
        kind === "hybrid"
          ? (await searcher.search({ query: q, timings: true })).timings
          : (await recall(searcher, store, { query: q, timings: true, record: false })).timings;
      wall.push(performance.now() - t);
      if (tail > 0)
        perQuery.push({ q, ms: wall[wall.length - 1]!, cpu: cpuMs(process.cpuUsage(c)), timings: timings ?? {} });
      for (const [k, v] of Object.entries(timings ?? {})) add(`${kind}.${k}`, v);
    }
    console.log(`${kind}: p50 ${fmtMs(median(wall))}, p95 ${fmtMs(percentile(wall, 95))} (${qs.length} queries)`);
    // --tail N: the N slowest queries with their stage timings (where a p95 comes from).
    // cpu: the process's CPU time during the query (all its threads); wall ≫ cpu means it waited for a core.
    for (const { q, ms, cpu, timings } of perQuery.sort((a, b) => b.ms - a.ms).slice(0, tail)) {
      const parts = Object.entries(timings).map(([k, v]) => `${k} ${v.toFixed(2)}`);
      console.log(`  ${fmtMs(ms)} (cpu ${fmtMs(cpu)}) ${JSON.stringify(q)}: ${parts.join(", ")}`);
    }
  };
  await run("hybrid", queries.slice(0, n));
  await run("recall", queries.slice(n));
  for (const kind of ["hybrid", "recall"]) {
    const parts = [...stages]
      .filter(([k]) => k.startsWith(`${kind}.`))
      .map(([k, xs]) => `${k.slice(kind.length + 1)} ${median(xs).toFixed(2)}`);
    console.log(`  ${kind} stage medians (ms): ${parts.join(", ")}`);
  }
  store.close();
  await provider.close();
}

function cpuMs(u: NodeJS.CpuUsage): number {
  return (u.user + u.system) / 1000;
}
