import { appendFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { CortexClient } from "../../src/client/client.js";
import { procMemMb, spawnDaemon, stopDaemon, waitIndexed, type RunningDaemon } from "./daemon-proc.js";
import { randomQueries } from "./corpus-queries.js";
import { generateWorkspace } from "./generate.js";
import { benchPath, fmtMs, freshDir, median, nodeArgsFlag, percentile, type Args } from "./util.js";

type Running = RunningDaemon;

/** Random queries of the corpus's own words that never repeat (see corpus-queries.ts), handed out in turn. */
let QUERIES: string[] = [];
let nextQuery = 0;
const query = (): string => QUERIES[nextQuery++ % QUERIES.length]!;

async function latency(r: Running, method: "memory.search" | "memory.recall", n: number): Promise<number[]> {
  const lat: number[] = [];
  for (let i = 0; i < n; i++) {
    const q = query();
    const t = performance.now();
    await r.client.call(method, { query: q });
    lat.push(performance.now() - t);
  }
  return lat;
}

async function throughput(r: Running, clients: number, seconds: number): Promise<number> {
  const cs = await Promise.all(
    Array.from({ length: clients }, () => CortexClient.connect(r.socket, { timeoutMs: 30_000 })),
  );
  let done = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    cs.map(async (c) => {
      while (performance.now() < end) {
        await c.call("memory.search", { query: query() });
        done++;
      }
    }),
  );
  cs.forEach((c) => c.close());
  return done / seconds;
}

async function changeToSearchable(r: Running, root: string, edits: number, debounceMs: number): Promise<number[]> {
  const files = readdirSync(join(root, "memory"))
    .filter((f) => f.endsWith(".md"))
    .sort();
  const out: number[] = [];
  for (let i = 0; i < edits; i++) {
    const token = `zqx${Date.now().toString(36)}k${i}`;
    const file = join(root, "memory", files[(i * 37) % files.length]!);
    const t = performance.now();
    appendFileSync(file, `\n- bench marker ${token}\n`);
    for (;;) {
      const res = await r.client.call("memory.search", { query: token, limit: 1 });
      if (res.results[0]?.snippet.includes(token) || res.results.length > 0) break;
      if (performance.now() - t > 10_000) throw new Error(`edit ${i} not searchable after 10 s`);
      await new Promise((res2) => setTimeout(res2, 2));
    }
    out.push(performance.now() - t - debounceMs);
  }
  return out;
}

function line(label: string, xs: number[]): string {
  return `${label} p50 ${fmtMs(median(xs))}, p95 ${fmtMs(percentile(xs, 95))}, p99 ${fmtMs(percentile(xs, 99))} (n=${xs.length})`;
}

/**
 * `npm run bench -- daemon [--files N] [--edits N] [--seconds S] [--seed S]`: the daemon over its
 * real socket, with random queries that never repeat (the throughput run reuses them only past 20,000).
 */
export async function benchDaemon(args: Args): Promise<void> {
  const files = Number(args.flags.files ?? 2000);
  const edits = Number(args.flags.edits ?? 60);
  const seconds = Number(args.flags.seconds ?? 5);
  const debounceMs = Number(args.flags.debounce ?? 100);
  const root = benchPath(`ws-daemon-${files}`);
  generateWorkspace(root, files, 42);
  QUERIES = randomQueries(root, 20_000, Number(args.flags.seed ?? Date.now() % 1_000_000));
  console.log(
    `workspace: ${files} files; debounce ${debounceMs} ms; node ${process.version}, ${process.platform}-${process.arch}`,
  );

  for (const provider of ["none", "auto"] as const) {
    const home = freshDir(benchPath(`home-daemon-${provider}`));
    const t0 = performance.now();
    const r = await spawnDaemon({ home, root, provider, debounceMs, nodeArgs: nodeArgsFlag(args) });
    await waitIndexed(r, provider);
    const label = provider === "none" ? "keyword-only" : "hybrid (built-in model)";
    console.log(`\n[${label}] started and indexed in ${fmtMs(performance.now() - t0)}`);
    await latency(r, "memory.search", 50); // warm-up
    console.log(`  ${line("socket search:        ", await latency(r, "memory.search", 500))}`);
    console.log(`  ${line("socket recall:        ", await latency(r, "memory.recall", 300))}`);
    console.log(`  throughput, 8 clients: ${Math.round(await throughput(r, 8, seconds))} searches/s`);
    const c2s = await changeToSearchable(r, root, edits, debounceMs);
    console.log(`  ${line("change→searchable:    ", c2s)} beyond the ${debounceMs} ms debounce`);
    // Idle: a few seconds after the last request (the daemon gives memory back after 3 s of quiet).
    await new Promise((res) => setTimeout(res, 5000));
    console.log(`  idle RSS:              ${procMemMb(r.child.pid!).rss} MB`);
    await stopDaemon(r);
  }
}
