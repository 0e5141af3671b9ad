import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { randomQueries } from "./corpus-queries.js";
import { spawnDaemon, stopDaemon, waitIndexed, type RunningDaemon } from "./daemon-proc.js";
import { generateWorkspace } from "./generate.js";
import { generateNotesWorkspace } from "./generate-notes.js";
import { benchPath, fmtMs, median, nodeArgsFlag, percentile, type Args } from "./util.js";

/**
 * Two daemons side by side, A and B, on the same generated workspace: two builds (`--a-root DIR`,
 * `--b-root DIR`: checkouts with their own dist/, default this one) or two sets of Node flags
 * (`--a-node-args "…"`, `--b-node-args "…"`). Each query goes to both, in alternating order (A B,
 * then B A), so the machine's drift hits both alike; random queries that never repeat.
 * `--burst N` sends N queries in a row to one daemon before the other's N (then the other way round):
 * each one's next request then comes as soon as its answer has (as the peers bench and an agent send
 * them), so the work a daemon does after an answer shows; the default, 1, alternates every query.
 * `npm run bench -- ab-daemon [--corpus notes|daily] [--method memory.recall|memory.search] [--queries 400] [--burst 1]`.
 */
export async function abDaemon(args: Args): Promise<void> {
  const corpus = String(args.flags.corpus ?? "notes");
  const files = Number(args.flags.files ?? 2000);
  const n = Number(args.flags.queries ?? 400);
  const method = String(args.flags.method ?? "memory.recall") as "memory.recall" | "memory.search";
  const burst = Math.max(1, Number(args.flags.burst ?? 1));
  const root = benchPath(`probe-${corpus}-${files}`);
  if (corpus === "daily") generateWorkspace(root, files);
  else generateNotesWorkspace(root, files);
  const side = (name: "a" | "b") => {
    const dir = args.flags[`${name}-root`];
    return {
      ...(typeof dir === "string" ? { packageRoot: resolve(dir) } : {}),
      nodeArgs: nodeArgsFlag(args, `${name}-node-args`),
    };
  };
  const homes: string[] = [];
  const start = async (name: "a" | "b"): Promise<RunningDaemon> => {
    const home = mkdtempSync(join(tmpdir(), `cortexd-ab-${name}-`));
    homes.push(home);
    const d = await spawnDaemon({ home, root, provider: "auto", stderr: "ignore", ...side(name) });
    await waitIndexed(d, "auto");
    return d;
  };
  const a = await start("a");
  const b = await start("b");
  try {
    const qs = randomQueries(root, n + 50, Number(args.flags.seed ?? 1301));
    const call = async (d: RunningDaemon, query: string) => {
      const t = performance.now();
      const res = (await d.client.call(method, { query, timings: true } as never)) as { timings?: { total: number } };
      return { wall: performance.now() - t, total: res.timings?.total ?? NaN };
    };
    for (const q of qs.slice(0, 50)) await Promise.all([call(a, q), call(b, q)].map((p) => p.catch(() => null)));
    const got = {
      a: { wall: [] as number[], total: [] as number[] },
      b: { wall: [] as number[], total: [] as number[] },
    };
    const measured = qs.slice(50);
    for (let at = 0, i = 0; at < measured.length; at += burst, i++) {
      const order = i % 2 === 0 ? (["a", "b"] as const) : (["b", "a"] as const);
      for (const name of order) {
        for (const q of measured.slice(at, at + burst)) {
          const r = await call(name === "a" ? a : b, q);
          got[name].wall.push(r.wall);
          got[name].total.push(r.total);
        }
      }
    }
    console.log(`${method}, corpus ${corpus}, ${n} queries each, interleaved${burst > 1 ? ` ${burst} at a time` : ""}`);
    for (const name of ["a", "b"] as const) {
      const { wall, total } = got[name];
      console.log(
        `  ${name.toUpperCase()}: socket p50 ${fmtMs(median(wall))}, p95 ${fmtMs(percentile(wall, 95))}; stage total p50 ${fmtMs(median(total))}`,
      );
    }
    console.log(`  B/A socket p50: ${(median(got.b.wall) / median(got.a.wall)).toFixed(3)}`);
  } finally {
    await stopDaemon(a);
    await stopDaemon(b);
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  }
}
