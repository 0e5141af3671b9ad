import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { ensureBuiltinModel } from "../../src/embed/builtin/ensure.js";
import { PACKAGE_ROOT } from "../../src/version.js";
import { randomQueries } from "./corpus-queries.js";
import { cortexdEnv, spawnDaemon, stopDaemon, waitIndexed, type RunningDaemon } from "./daemon-proc.js";
import { generateWorkspace } from "./generate.js";
import { generateNotesWorkspace } from "./generate-notes.js";
import { ensureQmd, openQmdStore, qmdEnv, qmdIndexPath, timeProcess, type QmdInstall } from "./qmd-peer.js";
import { benchPath, fmtMs, freshDir, median, percentile, type Args } from "./util.js";

const CORTEXD_BIN = join(PACKAGE_ROOT, "bin", "cortexd");

function writeCortexdConfig(home: string, root: string, provider: "none" | "auto"): void {
  const dir = join(home, ".config", "cortexd");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({ workspaces: [{ path: root }], embedding: { provider }, daemon: { debounceMs: 100, settleMs: 0 } }),
  );
}

/** Runs the pairs interleaved (A B, then B A, …) so drift hits both alike; returns each one's times. */
async function interleaved<T>(
  n: number,
  a: (i: number) => Promise<T> | T,
  b: (i: number) => Promise<T> | T,
): Promise<[T[], T[]]> {
  const as: T[] = [];
  const bs: T[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) {
      as.push(await a(i));
      bs.push(await b(i));
    } else {
      bs.push(await b(i));
      as.push(await a(i));
    }
  }
  return [as, bs];
}

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

/** Per round p50/p95/p99, then the median of each over the rounds. */
function roundStats(rounds: number[][]): { p50: number; p95: number; p99: number } {
  return {
    p50: median(rounds.map((r) => median(r))),
    p95: median(rounds.map((r) => percentile(r, 95))),
    p99: median(rounds.map((r) => percentile(r, 99))),
  };
}

function ratio(a: number, b: number): string {
  return Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : "";
}

function row(label: string, a: string, b: string, r: string): string {
  return `${label.padEnd(40)} ${a.padEnd(34)} ${b.padEnd(30)} ${r}`;
}

const lat = (s: { p50: number; p95: number; p99: number }, p99 = false) =>
  `p50 ${fmtMs(s.p50)}, p95 ${fmtMs(s.p95)}${p99 ? `, p99 ${fmtMs(s.p99)}` : ""}`;

/** Median per stage over all calls (ms). */
function stageMedians(all: Record<string, number>[]): string {
  const keys = [...new Set(all.flatMap((t) => Object.keys(t)))];
  return keys.map((k) => `${k} ${median(all.map((t) => t[k] ?? 0)).toFixed(2)}`).join(", ");
}

function makeWorkspace(corpus: string, root: string, files: number): { files: number; bytes: number } {
  if (corpus === "notes") return generateNotesWorkspace(root, files);
  if (corpus !== "daily") throw new Error(`--corpus must be notes or daily, got "${corpus}"`);
  const g = generateWorkspace(root, files, 42);
  // QMD indexes markdown; the transcripts are left out so both index the same text.
  rmSync(join(root, "sessions"), { recursive: true, force: true });
  return g;
}

/**
 * `npm run bench -- peers [--corpus notes|daily] [--files N] [--queries N] [--rounds R] [--runs N] [--seed S]`:
 * cortexd beside QMD on one generated workspace, in the same run, interleaved. Queries are random
 * 2–4-word draws of the corpus's own words and never repeat.
 */
export async function benchPeers(args: Args): Promise<void> {
  const corpus = String(args.flags.corpus ?? "notes");
  const files = Number(args.flags.files ?? 2000);
  const perRound = Number(args.flags.queries ?? 200);
  const rounds = Number(args.flags.rounds ?? 3);
  const runs = Number(args.flags.runs ?? 10);
  const seed = Number(args.flags.seed ?? Date.now() % 1_000_000);
  const qmd: QmdInstall = ensureQmd();
  const root = benchPath(`ws-peers-${corpus}-${files}`);
  const ws = makeWorkspace(corpus, root, files);
  const load = () =>
    loadavg()
      .map((x) => x.toFixed(2))
      .join(" ");
  console.log(
    `corpus ${corpus}: ${files} files, ${(ws.bytes / 1e6).toFixed(1)} MB; QMD ${qmd.version}; node ${process.version}; ${cpus().length} CPUs; load ${load()}; seed ${seed}`,
  );

  const models = benchPath("models");
  await ensureBuiltinModel(models);
  const kwHome = benchPath("home-peers-none");
  const hyHome = benchPath("home-peers-auto");
  const qHome = benchPath("home-peers-qmd");

  // Cold index as whole processes: fresh data dirs each time, interleaved.
  const coldReps = Number(args.flags.cold ?? 2);
  const cold = { qmd: [] as number[], none: [] as number[], auto: [] as number[] };
  for (let i = 0; i < coldReps; i++) {
    freshDir(qHome);
    cold.qmd.push(timeProcess(qmd.bin, ["collection", "add", root, "--name", "ws"], qmdEnv(qHome)));
    for (const [home, provider] of [
      [kwHome, "none"],
      [hyHome, "auto"],
    ] as const) {
      freshDir(home);
      writeCortexdConfig(home, root, provider);
      if (provider === "auto") {
        mkdirSync(join(home, "data", "cortexd", "models"), { recursive: true });
        cpSync(
          join(models, "cortexd-glove-100d-sif.gguf"),
          join(home, "data", "cortexd", "models", "cortexd-glove-100d-sif.gguf"),
        );
      }
      cold[provider].push(timeProcess(CORTEXD_BIN, ["index"], cortexdEnv(home)));
    }
  }

  const kw: RunningDaemon = await spawnDaemon({ home: kwHome, root, provider: "none", stderr: "ignore" });
  const hy: RunningDaemon = await spawnDaemon({ home: hyHome, root, provider: "auto", stderr: "ignore" });
  await waitIndexed(kw, "none");
  await waitIndexed(hy, "auto");
  const store = await openQmdStore(qmd, qmdIndexPath(qHome));

  const all = randomQueries(root, perRound * rounds * 3 + 60, seed);
  const take = (() => {
    let next = 0;
    return (k: number) => all.slice(next, (next += k));
  })();
  // Warm-up (not measured): opens statements, pages in the indexes.
  for (const q of take(20)) {
    await kw.client.call("memory.search", { query: q, limit: 10 });
    await hy.client.call("memory.recall", { query: q });
    await store.searchLex(q, { limit: 10 });
  }

  const kwRounds: number[][] = [];
  const qmdRounds: number[][] = [];
  const hyRounds: number[][] = [];
  const recRounds: number[][] = [];
  const kwStages: Record<string, number>[] = [];
  const hyStages: Record<string, number>[] = [];
  const recStages: Record<string, number>[] = [];
  for (let r = 0; r < rounds; r++) {
    const qs = take(perRound);
    const [a, b] = await interleaved(
      qs.length,
      (i) =>
        timed(async () => {
          const res = await kw.client.call("memory.search", { query: qs[i]!, limit: 10, timings: true });
          if (res.timings) kwStages.push(res.timings);
        }),
      (i) => timed(() => store.searchLex(qs[i]!, { limit: 10 })),
    );
    kwRounds.push(a);
    qmdRounds.push(b);
    const hq = take(perRound);
    const rq = take(perRound);
    const [h, c] = await interleaved(
      perRound,
      (i) =>
        timed(async () => {
          const res = await hy.client.call("memory.search", { query: hq[i]!, timings: true });
          if (res.timings) hyStages.push(res.timings);
        }),
      (i) =>
        timed(async () => {
          const res = await hy.client.call("memory.recall", { query: rq[i]!, timings: true });
          if (res.timings) recStages.push(res.timings);
        }),
    );
    hyRounds.push(h);
    recRounds.push(c);
  }
  const st = await hy.client.call("cortex.status", {});
  const chunks = st.workspaces[0]!.chunks;

  // Whole processes (the CLIs as a user runs them), interleaved.
  const kwEnv = cortexdEnv(hyHome);
  const pq = take(runs * 2);
  const [nodeT, versionT] = await interleaved(
    runs,
    () => timeProcess(process.execPath, ["-e", "0"], process.env),
    () => timeProcess(CORTEXD_BIN, ["--version"], kwEnv),
  );
  const [statusT] = await interleaved(
    runs,
    () => timeProcess(CORTEXD_BIN, ["status"], kwEnv),
    () => 0,
  );
  const [cSearchT, qSearchT] = await interleaved(
    runs,
    (i) => timeProcess(CORTEXD_BIN, ["search", ...pq[i]!.split(" ")], kwEnv),
    (i) => timeProcess(qmd.bin, ["search", pq[runs + i]!], qmdEnv(qHome)),
  );
  const [cIndexT, qUpdateT] = await interleaved(
    runs,
    () => timeProcess(CORTEXD_BIN, ["index"], kwEnv),
    () => timeProcess(qmd.bin, ["update"], qmdEnv(qHome)),
  );

  await store.close();
  await stopDaemon(kw);
  await stopDaemon(hy);

  const kwS = roundStats(kwRounds);
  const qmdS = roundStats(qmdRounds);
  const hyS = roundStats(hyRounds);
  const recS = roundStats(recRounds);
  const m = (xs: number[]) => median(xs);
  console.log(
    `\n${chunks} chunks; ${rounds} rounds × ${perRound} queries (medians of the rounds' percentiles); ${runs} process runs each; load ${load()}\n`,
  );
  console.log(row("", "cortexd", `QMD ${qmd.version}`, "ratio"));
  console.log(
    row("keyword search", `socket ${lat(kwS)}`, `searchLex ${lat(qmdS)}`, `${ratio(kwS.p50, qmdS.p50)} (p50)`),
  );
  console.log(row("hybrid search (built-in model)", `socket ${lat(hyS)}`, "—", ""));
  console.log(row("memory.recall", `socket ${lat(recS, true)}`, "—", ""));
  console.log(row("`node -e 0` (process)", fmtMs(m(nodeT)), "", ""));
  console.log(
    row("`cortexd --version` (process)", `${fmtMs(m(versionT))} = ${ratio(m(versionT), m(nodeT))} node -e 0`, "", ""),
  );
  console.log(
    row("`cortexd status` (process)", `${fmtMs(m(statusT))} = ${ratio(m(statusT), m(nodeT))} node -e 0`, "", ""),
  );
  console.log(
    row(
      "search through the daemon (process)",
      fmtMs(m(cSearchT)),
      `qmd search ${fmtMs(m(qSearchT))}`,
      ratio(m(cSearchT), m(qSearchT)),
    ),
  );
  console.log(
    row(
      "index, nothing changed (process)",
      fmtMs(m(cIndexT)),
      `qmd update ${fmtMs(m(qUpdateT))}`,
      ratio(m(cIndexT), m(qUpdateT)),
    ),
  );
  console.log(
    row(
      "cold index, keyword-only (process)",
      fmtMs(m(cold.none)),
      `qmd collection add ${fmtMs(m(cold.qmd))}`,
      ratio(m(cold.none), m(cold.qmd)),
    ),
  );
  console.log(row("cold index, with vectors (process)", fmtMs(m(cold.auto)), "", ratio(m(cold.auto), m(cold.qmd))));
  console.log(
    `\nstage medians (ms):\n  keyword search: ${stageMedians(kwStages)}\n  hybrid search:  ${stageMedians(hyStages)}\n  recall:         ${stageMedians(recStages)}`,
  );
}
