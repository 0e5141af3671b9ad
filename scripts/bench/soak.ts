import { appendFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CortexClient } from "../../src/client/client.js";
import { procMemMb, spawnDaemon, stopDaemon, waitIndexed } from "./daemon-proc.js";
import { generateWorkspace, rng, sampleQuery } from "./generate.js";
import { benchPath, fmtMs, freshDir, median, percentile, type Args } from "./util.js";
import { errorMessage } from "../../src/util/error-message.js";

export type SoakOp = "search" | "recall" | "save";

export interface SoakOptions {
  /** The daemon under test: its socket, pid (for RSS) and first workspace root (the writer edits it). */
  socket: string;
  pid: number;
  root: string;
  clients: number;
  durationMs: number;
  /** Pause between one client's requests (uniform 0..thinkMs). */
  thinkMs?: number;
  /** One file edit every editMs. */
  editMs?: number;
  /** RSS sample period. */
  sampleMs?: number;
  seed?: number;
  /** Progress lines (long runs). */
  log?: (line: string) => void;
}

export interface SoakResult {
  ops: Record<SoakOp, { n: number; p50: number; p95: number; p99: number; max: number }>;
  errors: { op: string; message: string }[];
  daemonErrors: { at: string; message: string }[];
  edits: number;
  rssMb: number[];
  /** Peak RSS of the last quarter minus peak RSS of the second quarter (after warm-up). */
  rssGrowthMb: number;
  /** Files the index is missing or has extra after the writer stopped and the watcher settled. */
  driftAfterSettle: number;
  /** Saved memories that a search does not find afterwards. */
  lostSaves: number;
  daemonAlive: boolean;
}

const MIX: [SoakOp, number][] = [
  ["search", 0.6],
  ["recall", 0.3],
  ["save", 0.1],
];

/**
 * The sustained-load loop against a running daemon: N clients issue a mix of searches (60%),
 * recalls (30%) and saves (10%) while a writer appends to daily logs, creates, rewrites and
 * deletes notes, so the watcher and indexer work under the load. Afterwards: the writer stops,
 * the index must match the disk (no drift once the watcher settled) and every save must be found.
 */
export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const r = rng(o.seed ?? 7);
  const queries = Array.from({ length: 200 }, () => sampleQuery(r));
  const think = o.thinkMs ?? 20;
  const lat: Record<SoakOp, number[]> = { search: [], recall: [], save: [] };
  const errors: { op: string; message: string }[] = [];
  const saved: { token: string; path: string; line: number }[] = [];
  const rssMb: number[] = [];
  const end = Date.now() + o.durationMs;
  const log = o.log ?? (() => {});

  const sampler = setInterval(() => rssMb.push(procMemMb(o.pid).rss), o.sampleMs ?? 5000);
  rssMb.push(procMemMb(o.pid).rss);
  const started = Date.now();
  const progress = setInterval(() => {
    const done = lat.search.length + lat.recall.length + lat.save.length;
    log(
      `  ${Math.round((Date.now() - started) / 1000)} s: ${done} requests, ${errors.length} errors, RSS ${rssMb[rssMb.length - 1]} MB`,
    );
  }, 60_000);

  // The writer: real file changes the watcher has to follow.
  const soakDir = join(o.root, "memory", "soak");
  mkdirSync(soakDir, { recursive: true });
  const dailies = readdirSync(join(o.root, "memory"))
    .filter((f) => f.endsWith(".md"))
    .sort();
  let edits = 0;
  let notes = 0;
  const writer = (async () => {
    const wr = rng((o.seed ?? 7) + 1);
    while (Date.now() < end) {
      const x = wr();
      try {
        if (x < 0.7 && dailies.length) {
          appendFileSync(
            join(o.root, "memory", dailies[Math.floor(wr() * dailies.length)]!),
            `\n- soak edit ${edits}: ${sampleQuery(wr)} and the release notes.\n`,
          );
        } else if (x < 0.85 || notes === 0) {
          writeFileSync(
            join(soakDir, `note-${notes++ % 50}.md`),
            `# Soak note ${notes}\n\n${Array.from({ length: 8 }, () => sampleQuery(wr)).join(". ")}.\n`,
          );
        } else if (x < 0.95) {
          writeFileSync(
            join(soakDir, `note-${Math.floor(wr() * Math.min(notes, 50))}.md`),
            `# Rewritten ${edits}\n\n${sampleQuery(wr)}.\n`,
          );
        } else {
          rmSync(join(soakDir, `note-${Math.floor(wr() * Math.min(notes, 50))}.md`), { force: true });
        }
        edits++;
      } catch (e) {
        errors.push({ op: "edit", message: errorMessage(e) });
      }
      await new Promise((res) => setTimeout(res, o.editMs ?? 250));
    }
  })();

  const clients = await Promise.all(
    Array.from({ length: o.clients }, () => CortexClient.connect(o.socket, { timeoutMs: 30_000 })),
  );
  await Promise.all(
    clients.map(async (c, k) => {
      const cr = rng(1000 + k);
      for (let i = 0; Date.now() < end; i++) {
        const x = cr();
        let op: SoakOp = "save";
        let acc = 0;
        for (const [name, p] of MIX)
          if (x < (acc += p)) {
            op = name;
            break;
          }
        const q = queries[Math.floor(cr() * queries.length)]!;
        const t = performance.now();
        try {
          if (op === "search") await c.call("memory.search", { query: q });
          else if (op === "recall") await c.call("memory.recall", { query: q });
          else {
            const token = `soaksave${k}x${i}z${Date.now().toString(36)}`;
            const res = await c.call("memory.save", { text: `Soak client ${k} remembers ${token} about ${q}.` });
            if (res.stored && res.startLine !== undefined) saved.push({ token, path: res.path, line: res.startLine });
          }
          lat[op].push(performance.now() - t);
        } catch (e) {
          errors.push({ op, message: errorMessage(e) });
        }
        if (think > 0) await new Promise((res) => setTimeout(res, cr() * think));
      }
    }),
  );
  await writer;
  clearInterval(sampler);
  clearInterval(progress);
  rssMb.push(procMemMb(o.pid).rss);

  // Settle: the watcher indexes the last edits, then a full sync must find nothing left to do.
  const c = clients[0]!;
  let driftAfterSettle = -1;
  let lostSaves = -1;
  let daemonErrors: { at: string; message: string }[] = [];
  let daemonAlive = true;
  try {
    for (let i = 0; i < 100; i++) {
      const st = await c.call("index.status", {});
      if (st.workspaces.every((w) => w.dirty === 0)) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    await new Promise((res) => setTimeout(res, 1500)); // debounce + settle of the last events
    const rep = (await c.call("index.sync", {})).reports[0]!;
    driftAfterSettle = rep.added + rep.changed + rep.removed + rep.renamed;
    lostSaves = 0;
    // The last saves (and a spread of earlier ones) must be found by their unique word, at the line written.
    const check = [
      ...saved.slice(-10),
      ...saved.filter((_, i) => i % Math.max(1, Math.floor(saved.length / 10)) === 0),
    ];
    for (const s of check) {
      const res = await c.call("memory.search", { query: s.token, limit: 3 });
      if (!res.results.some((h) => h.path === s.path && h.startLine <= s.line && s.line <= h.endLine)) lostSaves++;
    }
    daemonErrors = (await c.call("cortex.status", {})).errors;
  } catch (e) {
    daemonAlive = false;
    errors.push({ op: "final check", message: errorMessage(e) });
  }
  clients.forEach((x) => x.close());

  const q = Math.floor(rssMb.length / 4);
  const peak = (xs: number[]) => Math.max(...xs.filter(Number.isFinite));
  const rssGrowthMb = rssMb.length >= 8 ? peak(rssMb.slice(3 * q)) - peak(rssMb.slice(q, 2 * q)) : 0;
  const dist = (xs: number[]) => ({
    n: xs.length,
    p50: median(xs),
    p95: percentile(xs, 95),
    p99: percentile(xs, 99),
    max: xs.length ? Math.max(...xs) : NaN,
  });
  return {
    ops: { search: dist(lat.search), recall: dist(lat.recall), save: dist(lat.save) },
    errors,
    daemonErrors,
    edits,
    rssMb,
    rssGrowthMb,
    driftAfterSettle,
    lostSaves,
    daemonAlive,
  };
}

export function printSoak(res: SoakResult): void {
  for (const [op, d] of Object.entries(res.ops)) {
    console.log(
      `  ${op.padEnd(7)} n=${String(d.n).padEnd(6)} p50 ${fmtMs(d.p50)}, p95 ${fmtMs(d.p95)}, p99 ${fmtMs(d.p99)}, max ${fmtMs(d.max)}`,
    );
  }
  console.log(`  file edits by the writer: ${res.edits}`);
  console.log(
    `  client errors: ${res.errors.length}${res.errors.length ? ` (first: ${res.errors[0]!.op}: ${res.errors[0]!.message})` : ""}`,
  );
  console.log(
    `  daemon errors in status: ${res.daemonErrors.length}${res.daemonErrors.length ? ` (first: ${res.daemonErrors[0]!.message})` : ""}`,
  );
  console.log(`  drift after settle: ${res.driftAfterSettle} files; saves not found: ${res.lostSaves}`);
  console.log(`  RSS samples (MB): ${res.rssMb.join(" ")}`);
  console.log(`  RSS growth (peak of last quarter − peak of second quarter): ${res.rssGrowthMb} MB`);
}

/**
 * `npm run bench -- soak [--clients 8] [--minutes 10 | --seconds S] [--files 2000] [--provider auto|none]`:
 * a real daemon on a seeded workspace under sustained mixed load while files change. Exits
 * non-zero on any error, drift, lost save, RSS growth over --max-growth MB (default 64) or
 * search p99 over --p99 ms (default 250).
 */
export async function benchSoak(args: Args): Promise<void> {
  const clients = Number(args.flags.clients ?? 8);
  const seconds = args.flags.seconds !== undefined ? Number(args.flags.seconds) : Number(args.flags.minutes ?? 10) * 60;
  const files = Number(args.flags.files ?? 2000);
  const provider = (args.flags.provider ?? "auto") as "auto" | "none";
  const maxGrowth = Number(args.flags["max-growth"] ?? 64);
  const p99Target = Number(args.flags.p99 ?? 250);
  const root = benchPath(`ws-soak-${files}`);
  rmSync(root, { recursive: true, force: true }); // the writer changes it: start from the seeded state
  generateWorkspace(root, files, 42);
  const home = freshDir(benchPath(`home-soak-${provider}`));
  const d = await spawnDaemon({ home, root, provider, debounceMs: 300, daemon: { settleMs: 50 } });
  try {
    await waitIndexed(d, provider);
    console.log(
      `soak: ${clients} clients × ${seconds} s, ${files} files, provider ${provider}; node ${process.version}, ${process.platform}-${process.arch}`,
    );
    const res = await runSoak({
      socket: d.socket,
      pid: d.child.pid!,
      root,
      clients,
      durationMs: seconds * 1000,
      sampleMs: seconds > 120 ? 10_000 : 1000,
      log: console.log,
    });
    printSoak(res);
    const failures = [
      res.errors.length > 0 && `${res.errors.length} client errors`,
      res.daemonErrors.length > 0 && `${res.daemonErrors.length} daemon errors`,
      res.driftAfterSettle !== 0 && `drift ${res.driftAfterSettle}`,
      res.lostSaves !== 0 && `${res.lostSaves} saves not found`,
      res.rssGrowthMb > maxGrowth && `RSS grew ${res.rssGrowthMb} MB (bound ${maxGrowth})`,
      res.ops.search.p99 > p99Target && `search p99 ${fmtMs(res.ops.search.p99)} over ${p99Target} ms`,
      !existsSync(d.socket) && "socket gone",
    ].filter(Boolean);
    console.log(failures.length ? `FAIL: ${failures.join("; ")}` : "PASS");
    appendFileSync(
      benchPath("soak-results.jsonl"),
      JSON.stringify({ at: new Date().toISOString(), clients, seconds, files, provider, ...res }) + "\n",
    );
    if (failures.length) process.exitCode = 1;
  } finally {
    await stopDaemon(d);
  }
}
