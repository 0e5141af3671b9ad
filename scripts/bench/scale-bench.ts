import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { procMemMb, spawnDaemon, stopDaemon, waitIndexed, type RunningDaemon } from "./daemon-proc.js";
import { randomQueries } from "./corpus-queries.js";
import { generateWorkspace } from "./generate.js";
import { CortexClient } from "../../src/client/client.js";
import { benchPath, fileSize, fmtMs, freshDir, median, type Args } from "./util.js";
import { latencyDist, printTail, timedCall, type TimedCall } from "./scale-latency.js";
import { qmdOnCorpus, type QmdSide } from "./scale-qmd.js";
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
  /** idleMb: 2 s after the last request; idleLaterMb: 10 s after, once the daemon's idle collection (3 s of quiet) ran. */
  rss: { peakMb: number; afterIndexMb: number; idleMb: number; idleLaterMb: number };
  /** QMD's searchLex on the same queries, interleaved with the socket searches (`--qmd`). */
  qmd?: { version: string; coldMs: number | null; searchLex: { p50: number; p95: number; p99: number; n: number } };
}

/** How a mode is measured: the queries (distinct: warm-up, searches, recalls), the slowest shown, QMD beside. */
interface Plan {
  warmup: string[];
  search: string[];
  recall: string[];
  reuse: boolean;
  settleS: number;
  tail: number;
  nodeArgs: string[];
  qmd?: QmdSide;
}

function indexBytes(dataDir: string): number {
  const dir = join(dataDir, "indexes");
  return readdirSync(dir).reduce((n, f) => n + fileSize(join(dir, f)), 0);
}

/** Socket searches (limit 10), each right before or after QMD's searchLex of the same query when QMD is beside. */
async function searches(r: RunningDaemon, plan: Plan): Promise<{ calls: TimedCall[]; qmd: number[] }> {
  const calls: TimedCall[] = [];
  const qmd: number[] = [];
  const lex = async (q: string) => {
    const t = performance.now();
    await plan.qmd!.store.searchLex(q, { limit: 10 });
    qmd.push(performance.now() - t);
  };
  for (const [i, q] of plan.search.entries()) {
    if (plan.qmd && i % 2 === 1) await lex(q);
    calls.push(await timedCall(r, "memory.search", q));
    if (plan.qmd && i % 2 === 0) await lex(q);
  }
  return { calls, qmd };
}

/** One mode: cold index by a fresh daemon, unchanged re-syncs, socket latency, RSS, index size. */
async function runMode(
  mode: "keyword" | "hybrid",
  root: string,
  files: number,
  corpusBytes: number,
  plan: Plan,
): Promise<ScaleFigures & { dataDir: string; reused: boolean }> {
  const provider = mode === "keyword" ? "none" : "auto";
  const homePath = benchPath(`home-scale-${files}-${mode}`);
  // --reuse-index: start on the index a previous run built (the start is then an unchanged re-sync).
  const reused = plan.reuse && existsSync(join(homePath, "data", "cortexd", "indexes"));
  const home = reused ? homePath : freshDir(homePath);
  let peakDuringIndex = 0;
  const t0 = performance.now();
  // No heartbeat or nightly job during the measurement: they would run syncs of their own.
  const r = await spawnDaemon({
    home,
    root,
    provider,
    nodeArgs: plan.nodeArgs,
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
    if (plan.settleS > 0) {
      await new Promise((res) => setTimeout(res, plan.settleS * 1000));
      // The daemon closes a connection idle for 5 minutes (rpc/server.ts): connect again, as a host would.
      r.client.close();
      r.client = await CortexClient.connect(r.socket, { timeoutMs: 600_000 });
    }
    for (const q of plan.warmup) await timedCall(r, "memory.search", q);
    if (plan.qmd) for (const q of plan.warmup) await plan.qmd.store.searchLex(q, { limit: 10 });
    const s = await searches(r, plan);
    const search = latencyDist(s.calls.map((c) => c.ms));
    console.log(
      `  socket search:      p50 ${fmtMs(search.p50)}, p95 ${fmtMs(search.p95)}, p99 ${fmtMs(search.p99)} (n=${search.n}, limit 10, distinct queries)`,
    );
    const lex = plan.qmd ? latencyDist(s.qmd) : null;
    if (lex)
      console.log(
        `  QMD searchLex:      p50 ${fmtMs(lex.p50)}, p95 ${fmtMs(lex.p95)}, p99 ${fmtMs(lex.p99)} (same queries, interleaved, in-process); ` +
          `cortexd/QMD p50 ${(search.p50 / lex.p50).toFixed(2)}×, p95 ${(search.p95 / lex.p95).toFixed(2)}×`,
      );
    printTail("search", s.calls, plan.tail);
    const recallCalls: TimedCall[] = [];
    for (const q of plan.recall) recallCalls.push(await timedCall(r, "memory.recall", q));
    const recall = latencyDist(recallCalls.map((c) => c.ms));
    console.log(
      `  socket recall:      p50 ${fmtMs(recall.p50)}, p95 ${fmtMs(recall.p95)}, p99 ${fmtMs(recall.p99)} (n=${recall.n})`,
    );
    printTail("recall", recallCalls, plan.tail);
    await new Promise((res) => setTimeout(res, 2000));
    const mem = procMemMb(r.child.pid!);
    await new Promise((res) => setTimeout(res, 8000));
    const idleLaterMb = procMemMb(r.child.pid!).rss;
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
      rss: { peakMb: Math.max(mem.hwm, peakDuringIndex), afterIndexMb, idleMb: mem.rss, idleLaterMb },
      dataDir: r.dataDir,
      reused,
      ...(plan.qmd && lex ? { qmd: { version: plan.qmd.version, coldMs: plan.qmd.coldMs, searchLex: lex } } : {}),
    };
    console.log(`  status call:        median ${fmtMs(statusMs)} of 5 (first ${fmtMs(statusRuns[0]!)})`);
    console.log(
      `  index size:         ${(figures.indexBytes / 1e6).toFixed(0)} MB (${(figures.indexBytes / corpusBytes).toFixed(2)}× corpus)`,
    );
    console.log(
      `  RSS:                peak ${figures.rss.peakMb} MB, after indexing ${afterIndexMb} MB, idle after searches ${mem.rss} MB (${idleLaterMb} MB 10 s after the last request)`,
    );
    return figures;
  } finally {
    await stopDaemon(r);
  }
}

/**
 * `npm run bench -- scale [--files 10000] [--modes keyword,hybrid] [--queries 1000] [--seed 42] [--no-probes]
 *  [--reuse-index] [--settle S] [--qmd] [--tail N] [--cpu-prof DIR] [--query-seed 2024]`:
 * a seeded workspace of N files (≈ 10 chunks each) indexed cold by a real daemon per mode; then
 * unchanged re-syncs, search/recall latency over the socket, RSS and index size. Then, in-process on
 * the built index, the keyword probe (keyword mode: budgeted vs exact FTS5 ranking) or the vector
 * probe (hybrid: exact vs quantized KNN), each with latency and top-10 overlap. `--qmd`: QMD
 * indexes the same files in the same run and its in-process searchLex runs interleaved with the
 * socket searches (ratios printed); `--tail N`: the N slowest searches and recalls with their stages.
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
  // Distinct random queries of 2–4 corpus words (as the peers bench draws them): 50 to warm up,
  // then the searches, then the recalls, none repeated.
  const nRecall = Math.max(50, Math.floor(n / 4));
  const queries = scaleQueries(root, files, 50 + n + nRecall, Number(args.flags["query-seed"] ?? 2024));
  const reuse = !!args.flags["reuse-index"];
  // --qmd: QMD indexes the same files first (not while cortexd indexes), its searchLex beside the searches.
  const qmd = args.flags.qmd && modes.includes("keyword") ? await qmdOnCorpus(root, files, reuse) : undefined;
  const profDir = args.flags["cpu-prof"] ? String(args.flags["cpu-prof"]) : "";
  for (const mode of modes) {
    const f = await runMode(mode, root, files, gen.bytes, {
      warmup: queries.slice(0, 50),
      search: queries.slice(50, 50 + n),
      recall: queries.slice(50 + n),
      reuse,
      settleS: Number(args.flags.settle ?? 0),
      tail: Number(args.flags.tail ?? 0),
      // --cpu-prof DIR: the daemon writes a CPU profile there when it stops.
      nodeArgs: profDir ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : [],
      ...(mode === "keyword" && qmd ? { qmd } : {}),
    });
    const indexes = join(f.dataDir, "indexes");
    const probe = args.flags["no-probes"]
      ? {}
      : mode === "hybrid"
        ? { vectorProbe: await vectorProbe(indexes, queries.slice(50, 250)) }
        : { keywordProbe: await keywordProbe(indexes, queries.slice(50, 350)) };
    appendFileSync(
      benchPath("scale-results.jsonl"),
      JSON.stringify({ at: new Date().toISOString(), ...f, ...probe }) + "\n",
    );
  }
  await qmd?.store.close();
}

/** The bench's queries for a workspace, kept beside it (drawing them reads the whole corpus). */
function scaleQueries(root: string, files: number, count: number, seed: number): string[] {
  const path = benchPath(`queries-scale-${files}-${seed}-${count}.json`);
  if (existsSync(path)) return JSON.parse(readFileSync(path, "utf8")) as string[];
  const qs = randomQueries(root, count, seed);
  writeFileSync(path, JSON.stringify(qs));
  return qs;
}
