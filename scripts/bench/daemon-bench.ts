import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CortexClient, probeDaemon } from "../../src/client/client.js";
import { DAEMON_NODE_OPTIONS } from "../../src/service/units.js";
import { PACKAGE_ROOT } from "../../src/version.js";
import { generateWorkspace, rng, sampleQuery } from "./generate.js";
import { benchPath, fmtMs, freshDir, median, percentile, type Args } from "./util.js";

/** Seeded queries that mix common and rarer words of the generated vocabulary. */
const QUERIES = (() => {
  const r = rng(2024);
  return Array.from({ length: 50 }, () => sampleQuery(r));
})();

interface Running {
  child: ChildProcess;
  socket: string;
  client: CortexClient;
}

async function startDaemon(home: string, root: string, provider: "none" | "auto", debounceMs: number): Promise<Running> {
  const cfgDir = join(home, ".config", "cortexd");
  mkdirSync(cfgDir, { recursive: true });
  writeFileSync(join(cfgDir, "config.json"), JSON.stringify({ workspaces: [{ path: root }], embedding: { provider }, daemon: { debounceMs, settleMs: 0 } }));
  const env = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, "data"),
    XDG_RUNTIME_DIR: join(home, "run"),
    CORTEXD_LOG_LEVEL: "warn",
    NODE_OPTIONS: DAEMON_NODE_OPTIONS, // as the service files and `cortexd start` run it
  };
  // Share the built-in model between runs.
  mkdirSync(join(home, "data", "cortexd"), { recursive: true });
  const child = spawn(process.execPath, [join(PACKAGE_ROOT, "dist/src/cli/main.js"), "run"], { env, stdio: ["ignore", "ignore", "inherit"] });
  const socket = join(home, "run", "cortexd", "cortexd.sock");
  const end = Date.now() + 60_000;
  while (!(await probeDaemon(socket, 300)).up) {
    if (Date.now() > end || child.exitCode !== null) throw new Error("daemon did not start");
    await new Promise((r) => setTimeout(r, 50));
  }
  const client = await CortexClient.connect(socket, { timeoutMs: 120_000 });
  // Wait for the initial index (and vectors) to be complete.
  for (;;) {
    const st = await client.call("cortex.status", {});
    const w = st.workspaces[0]!;
    const synced = w.lastSync !== null && w.files > 0 && w.dirty === 0;
    const ready = provider === "none" ? synced : synced && st.embedding.state === "ready" && w.vectors > 0 && w.pending === 0;
    if (ready) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return { child, socket, client };
}

async function stop(r: Running): Promise<void> {
  r.client.close();
  r.child.kill("SIGTERM");
  await new Promise((res) => r.child.once("exit", res));
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

async function searchLatency(r: Running, n: number): Promise<number[]> {
  const lat: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await r.client.call("memory.search", { query: QUERIES[i % QUERIES.length]! });
    lat.push(performance.now() - t);
  }
  return lat;
}

async function throughput(r: Running, clients: number, seconds: number): Promise<number> {
  const cs = await Promise.all(Array.from({ length: clients }, () => CortexClient.connect(r.socket, { timeoutMs: 30_000 })));
  let done = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    cs.map(async (c, k) => {
      for (let i = k; performance.now() < end; i++) {
        await c.call("memory.search", { query: QUERIES[i % QUERIES.length]! });
        done++;
      }
    }),
  );
  cs.forEach((c) => c.close());
  return done / seconds;
}

async function changeToSearchable(r: Running, root: string, edits: number, debounceMs: number): Promise<number[]> {
  const files = readdirSync(join(root, "memory")).filter((f) => f.endsWith(".md")).sort();
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

/** `npm run bench -- daemon [--files N] [--edits N] [--seconds S]`: the daemon over its real socket. */
export async function benchDaemon(args: Args): Promise<void> {
  const files = Number(args.flags.files ?? 2000);
  const edits = Number(args.flags.edits ?? 60);
  const seconds = Number(args.flags.seconds ?? 5);
  const debounceMs = Number(args.flags.debounce ?? 100);
  const root = benchPath(`ws-daemon-${files}`);
  generateWorkspace(root, files, 42);
  console.log(`workspace: ${files} files; debounce ${debounceMs} ms; node ${process.version}, ${process.platform}-${process.arch}`);

  for (const provider of ["none", "auto"] as const) {
    const home = freshDir(benchPath(`home-daemon-${provider}`));
    mkdirSync(join(home, "data", "cortexd", "models"), { recursive: true });
    try {
      const model = join(benchPath("models"), "cortexd-glove-100d-sif.gguf");
      writeFileSync(join(home, "data", "cortexd", "models", "cortexd-glove-100d-sif.gguf"), readFileSync(model));
    } catch {
      /* built on first start instead */
    }
    const t0 = performance.now();
    const r = await startDaemon(home, root, provider, debounceMs);
    const label = provider === "none" ? "keyword-only" : "hybrid (built-in model)";
    console.log(`\n[${label}] started and indexed in ${fmtMs(performance.now() - t0)}`);
    await searchLatency(r, 50); // warm-up
    console.log(`  ${line("socket search:        ", await searchLatency(r, 500))}`);
    console.log(`  throughput, 8 clients: ${Math.round(await throughput(r, 8, seconds))} searches/s`);
    const c2s = await changeToSearchable(r, root, edits, debounceMs);
    console.log(`  ${line("change→searchable:    ", c2s)} beyond the ${debounceMs} ms debounce`);
    // Idle: a few seconds after the last request (the daemon gives memory back after 3 s of quiet).
    await new Promise((res) => setTimeout(res, 5000));
    console.log(`  idle RSS:              ${rssMb(r.child.pid!)} MB`);
    await stop(r);
  }
}
