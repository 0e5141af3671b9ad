import { appendFileSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { procMemMb, spawnDaemon, stopDaemon, waitIndexed, type RunningDaemon } from "./daemon-proc.js";
import { generateWorkspace, rng, sampleQuery } from "./generate.js";
import { benchPath, fileSize, fmtMs, freshDir, median, percentile, type Args } from "./util.js";
import { keywordProbe } from "./keyword-probe.js";
import { vectorProbe } from "./vector-probe.js";

/** Generated files are this much larger than the default so that a file yields ≈ 10 chunks. */
export const SCALE_SIZE_FACTOR = 2.1;

export interface ScaleFigures {
  mode: "keyword" | "hybrid";
  files: number;
  corpusBytes: number;
  chunks: number;
  vectors: number;
  coldMs: number;
  indexBytes: number;
  resyncMs: number[];
  statusMs: number;
  search: { p50: number; p95: number; p99: number; n: number };
  recall: { p50: number; p95: number; p99: number; n: number };
  rss: { peakMb: number; afterIndexMb: number; idleMb: number };
}

function dist(xs: number[]) {
  return { p50: median(xs), p95: percentile(xs, 95), p99: percentile(xs, 99), n: xs.length };
}

function indexBytes(dataDir: string): number {
  const dir = join(dataDir, "indexes");
  return readdirSync(dir).reduce((n, f) => n + fileSize(join(dir, f)), 0);
}

async function timed(
  r: RunningDaemon,
  method: "memory.search" | "memory.recall",
  queries: string[],
  n: number,
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const q = queries[i % queries.length]!;
    const t = performance.now();
    if (method === "memory.search") await r.client.call("memory.search", { query: q });
    else await r.client.call("memory.recall", { query: q });
    out.push(performance.now() - t);
  }
  return out;
}

/** One mode: cold index by a fresh daemon, unchanged re-syncs, socket latency, RSS, index size. */
async function runMode(
  mode: "keyword" | "hybrid",
  root: string,
  files: number,
  corpusBytes: number,
  queries: string[],
  n: number,
  reuse: boolean,
  settleS = 0,
): Promise<ScaleFigures & { dataDir: string; reused: boolean }> {
  const provider = mode === "keyword" ? "none" : "auto";
  const homePath = benchPath(`home-scale-${files}-${mode}`);
  // --reuse-index: start on the index a previous run built (the start is then an unchanged re-sync).
  const reused = reuse && existsSync(join(homePath, "data", "cortexd", "indexes"));
  const home = reused ? homePath : freshDir(homePath);
  let peakDuringIndex = 0;
  const t0 = performance.now();
  // No heartbeat or nightly job during the measurement: they would run syncs of their own.
  const r = await spawnDaemon({
    home,
    root,
    provider,
    extra: { schedule: { heartbeat: "0 0 1 1 *", consolidation: "0 0 1 1 *" } },
  });
  try {
    const st = await waitIndexed(
      r,
      provider,
      () => (peakDuringIndex = Math.max(peakDuringIndex, procMemMb(r.child.pid!).rss)),
      1000,
    );
    const coldMs = performance.now() - t0;
    const ws = st.workspaces[0]!;
    const afterIndexMb = procMemMb(r.child.pid!).rss;
    console.log(
      `\n[${mode}] ${ws.files} files, ${ws.chunks} chunks, ${ws.vectors} vectors: ${reused ? "start on the existing index" : "cold index"} ${fmtMs(coldMs)}`,
    );
    const statusRuns: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t1 = performance.now();
      await r.client.call("cortex.status", {});
      statusRuns.push(performance.now() - t1);
    }
    const statusMs = median(statusRuns);

    const resyncMs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const res = await r.client.call("index.sync", {});
      resyncMs.push(performance.now() - t);
      const rep = res.reports[0]!;
      if (rep.unchanged !== ws.files)
        throw new Error(`unchanged re-sync saw changes: ${JSON.stringify({ ...rep, skipped: rep.skipped.length })}`);
    }
    console.log(`  unchanged re-sync:  ${resyncMs.map(fmtMs).join(", ")}`);

    // --settle S: wait S seconds first (the keyword postings load in the background; FTS5 answers meanwhile).
    if (settleS > 0) await new Promise((res) => setTimeout(res, settleS * 1000));
    await timed(r, "memory.search", queries, 50); // warm-up
    const search = dist(await timed(r, "memory.search", queries, n));
    console.log(
      `  socket search:      p50 ${fmtMs(search.p50)}, p95 ${fmtMs(search.p95)}, p99 ${fmtMs(search.p99)} (n=${n})`,
    );
    const recall = dist(await timed(r, "memory.recall", queries, Math.max(50, Math.floor(n / 4))));
    console.log(
      `  socket recall:      p50 ${fmtMs(recall.p50)}, p95 ${fmtMs(recall.p95)}, p99 ${fmtMs(recall.p99)} (n=${recall.n})`,
    );
    await new Promise((res) => setTimeout(res, 2000));
    const mem = procMemMb(r.child.pid!);
    const figures: ScaleFigures & { dataDir: string; reused: boolean } = {
      mode,
      files,
      corpusBytes,
      chunks: ws.chunks,
      vectors: ws.vectors,
      coldMs,
      indexBytes: indexBytes(r.dataDir),
      resyncMs,
      statusMs,
      search,
      recall,
      rss: { peakMb: Math.max(mem.hwm, peakDuringIndex), afterIndexMb, idleMb: mem.rss },
      dataDir: r.dataDir,
      reused,
    };
    console.log(`  status call:        median ${fmtMs(statusMs)} of 5 (first ${fmtMs(statusRuns[0]!)})`);
    console.log(
      `  index size:         ${(figures.indexBytes / 1e6).toFixed(0)} MB (${(figures.indexBytes / corpusBytes).toFixed(2)}× corpus)`,
    );
    console.log(
      `  RSS:                peak ${figures.rss.peakMb} MB, after indexing ${afterIndexMb} MB, idle after searches ${mem.rss} MB`,
    );
    return figures;
  } finally {
    await stopDaemon(r);
  }
}

/**
 * `npm run bench -- scale [--files 10000] [--modes keyword,hybrid] [--queries 1000] [--seed 42] [--no-probes] [--reuse-index] [--settle S]`:
 * a seeded workspace of N files (≈ 10 chunks each) indexed cold by a real daemon per mode; then
 * unchanged re-syncs, search/recall latency over the socket, RSS and index size. Then, in-process on
 * the built index, the keyword probe (keyword mode: budgeted vs exact FTS5 ranking) or the vector
 * probe (hybrid: exact vs quantized KNN), each with latency and top-10 overlap.
 * Results are also appended to .bench/scale-results.jsonl.
 */
export async function benchScale(args: Args): Promise<void> {
  const files = Number(args.flags.files ?? 10_000);
  const seed = Number(args.flags.seed ?? 42);
  const modes = String(args.flags.modes ?? "keyword,hybrid").split(",") as ("keyword" | "hybrid")[];
  const n = Number(args.flags.queries ?? 1000);
  for (const m of modes)
    if (m !== "keyword" && m !== "hybrid") throw new Error(`--modes: unknown mode "${m}" (use keyword, hybrid)`);
  const root = benchPath(`ws-scale-${files}-${seed}`);
  const tg = performance.now();
  const gen = generateWorkspace(root, files, seed, true, SCALE_SIZE_FACTOR);
  console.log(
    `workspace: ${files} files, ${(gen.bytes / 1e6).toFixed(0)} MB (ready in ${fmtMs(performance.now() - tg)}); node ${process.version}, ${process.platform}-${process.arch}`,
  );
  const r = rng(2024);
  const queries = Array.from({ length: 200 }, () => sampleQuery(r));
  for (const mode of modes) {
    const f = await runMode(
      mode,
      root,
      files,
      gen.bytes,
      queries,
      n,
      !!args.flags["reuse-index"],
      Number(args.flags.settle ?? 0),
    );
    const indexes = join(f.dataDir, "indexes");
    const probe = args.flags["no-probes"]
      ? {}
      : mode === "hybrid"
        ? { vectorProbe: await vectorProbe(indexes, queries) }
        : { keywordProbe: await keywordProbe(indexes, queries) };
    appendFileSync(
      benchPath("scale-results.jsonl"),
      JSON.stringify({ at: new Date().toISOString(), ...f, ...probe }) + "\n",
    );
  }
}
