import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
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
 * The index is kept between runs (`--fresh` rebuilds it). `--index DIR` (a directory holding an
 * index .sqlite, e.g. the scale bench's) probes that index read-only instead, keyword-only or with
 * the built-in model (`--hybrid`), with the queries of `--queries-file F` (a JSON array).
 */
export async function recallProbe(args: Args): Promise<void> {
  if (args.flags.index) return probeBuiltIndex(args);
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
  const provider = await builtinProvider();
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
  await probeStages(searcher, store, queries.slice(0, n), queries.slice(n), Number(args.flags.tail ?? 0));
  store.close();
  await provider.close();
}

/** Keyword-only search and recall on a built index (read-only), as the daemon serves it. */
async function probeBuiltIndex(args: Args): Promise<void> {
  const dir = String(args.flags.index);
  const file = readdirSync(dir).find((f) => f.endsWith(".sqlite"));
  if (!file) throw new Error(`no index .sqlite in ${dir}`);
  const n = Number(args.flags.queries ?? 300);
  const store = new IndexStore(openDatabase(join(dir, file), { readonly: true }), "probe");
  const t0 = performance.now();
  store.keepKeywordsInMemory();
  if (!(await store.text.postings.ready())) throw new Error(`postings did not load: ${store.text.postings.lastError}`);
  store.warmChunkMeta();
  console.log(`postings and chunk metadata loaded in ${fmtMs(performance.now() - t0)}`);
  // --hybrid: the built-in model's vector leg beside the keyword leg (an index built with it).
  const hybrid = !!args.flags.hybrid;
  const provider = hybrid ? await builtinProvider() : null;
  const searcher = new Searcher({ store, provider, config: SearchSchema.parse({}) });
  const file2 = args.flags["queries-file"] ? String(args.flags["queries-file"]) : "";
  if (!file2) throw new Error("--queries-file F (a JSON array of queries) is required with --index");
  const all = JSON.parse(readFileSync(file2, "utf8")) as string[];
  const skip = Number(args.flags.skip ?? 0);
  const qs = all.slice(skip, skip + 2 * n);
  await probeStages(
    searcher,
    store,
    qs.slice(0, n),
    qs.slice(n),
    Number(args.flags.tail ?? 0),
    hybrid ? "hybrid" : "keyword",
  );
  store.close();
  await provider?.close();
}

async function builtinProvider() {
  const { ensureBuiltinModel } = await import("../../src/embed/builtin/ensure.js");
  const { createStaticBertProvider } = await import("../../src/embed/builtin/fast-provider.js");
  return createStaticBertProvider(await ensureBuiltinModel(benchPath("models")));
}

/** Search then recall over the queries: latency, per-stage medians and the slowest queries (`tail`). */
async function probeStages(
  searcher: Searcher,
  store: IndexStore,
  searchQs: string[],
  recallQs: string[],
  tail: number,
  searchKind: "hybrid" | "keyword" = "hybrid",
): Promise<void> {
  const stages = new Map<string, number[]>();
  const add = (name: string, ms: number) => {
    let xs = stages.get(name);
    if (!xs) stages.set(name, (xs = []));
    xs.push(ms);
  };
  const run = async (kind: "hybrid" | "keyword" | "recall", qs: string[]) => {
    const wall: number[] = [];
    const cpu: number[] = [];
    const perQuery: { q: string; ms: number; cpu: number; timings: Record<string, number> }[] = [];
    for (const q of qs) {
      const t = performance.now();
      const c = process.cpuUsage();
      const timings =
        kind !== "recall"
          ? (await searcher.search({ query: q, ...(kind === "keyword" ? { limit: 10 } : {}), timings: true })).timings
          : (await recall(searcher, store, { query: q, timings: true, record: false })).timings;
      wall.push(performance.now() - t);
      cpu.push(cpuMs(process.cpuUsage(c)));
      if (tail > 0) perQuery.push({ q, ms: wall[wall.length - 1]!, cpu: cpu[cpu.length - 1]!, timings: timings ?? {} });
      for (const [k, v] of Object.entries(timings ?? {})) add(`${kind}.${k}`, v);
    }
    // CPU time beside wall time: on a shared machine the wall time counts the waits for a core.
    console.log(
      `${kind}: p50 ${fmtMs(median(wall))}, p95 ${fmtMs(percentile(wall, 95))} (${qs.length} queries); ` +
        `process CPU p50 ${fmtMs(median(cpu))}, p95 ${fmtMs(percentile(cpu, 95))}`,
    );
    // --tail N: the N slowest queries with their stage timings (where a p95 comes from).
    // cpu: the process's CPU time during the query (all its threads); wall ≫ cpu means it waited for a core.
    for (const { q, ms, cpu, timings } of perQuery.sort((a, b) => b.ms - a.ms).slice(0, tail)) {
      const parts = Object.entries(timings).map(([k, v]) => `${k} ${v.toFixed(2)}`);
      console.log(`  ${fmtMs(ms)} (cpu ${fmtMs(cpu)}) ${JSON.stringify(q)}: ${parts.join(", ")}`);
    }
  };
  await run(searchKind, searchQs);
  await run("recall", recallQs);
  for (const kind of [searchKind, "recall"]) {
    const parts = [...stages]
      .filter(([k]) => k.startsWith(`${kind}.`))
      .map(([k, xs]) => `${k.slice(kind.length + 1)} ${median(xs).toFixed(2)}`);
    console.log(`  ${kind} stage medians (ms): ${parts.join(", ")}`);
  }
}

function cpuMs(u: NodeJS.CpuUsage): number {
  return (u.user + u.system) / 1000;
}
