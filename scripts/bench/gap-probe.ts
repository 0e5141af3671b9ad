import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomQueries } from "./corpus-queries.js";
import { spawnDaemon, stopDaemon, waitIndexed } from "./daemon-proc.js";
import { generateNotesWorkspace } from "./generate-notes.js";
import { benchPath, fmtMs, median, nodeArgsFlag, percentile, type Args } from "./util.js";

/**
 * The socket gap: a real daemon's wall time per request (client side) against the stage total it
 * reports, for hybrid search and recall (`npm run bench -- gap`; `--cpu-prof DIR` profiles the daemon;
 * `--ping-after` sends a ping right after each answer: its time over the floor is the work the daemon
 * still does once it has answered, which a back-to-back request waits for).
 */
export async function gapProbe(args: Args): Promise<void> {
  const files = Number(args.flags.files ?? 2000);
  const n = Number(args.flags.queries ?? 300);
  const root = benchPath(`probe-notes-${files}`);
  generateNotesWorkspace(root, files);
  const home = mkdtempSync(join(tmpdir(), "cortexd-gap-"));
  const prof = args.flags["cpu-prof"];
  const nodeArgs = [...(prof ? ["--cpu-prof", `--cpu-prof-dir=${String(prof)}`] : []), ...nodeArgsFlag(args)];
  const d = await spawnDaemon({ home, root, provider: "auto", nodeArgs });
  try {
    await waitIndexed(d, "auto");
    const qs = randomQueries(root, 2 * n, Number(args.flags.seed ?? 77));
    const interleave = args.flags["ping-after"] !== undefined;
    // The floor: a constant-cost call over the same socket (framing, dispatch, two process wake-ups).
    const ping: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await d.client.call("daemon.ping", {} as never);
      ping.push(performance.now() - t);
    }
    console.log(`ping: socket p50 ${fmtMs(median(ping))}`);
    for (const [kind, method] of [
      ["hybrid", "memory.search"],
      ["recall", "memory.recall"],
    ] as const) {
      const wall: number[] = [];
      const total: number[] = [];
      const bytes: number[] = [];
      const after: number[] = [];
      for (const query of kind === "hybrid" ? qs.slice(0, n) : qs.slice(n)) {
        const t = performance.now();
        const res = (await d.client.call(method, { query, timings: true } as never)) as { timings?: { total: number } };
        wall.push(performance.now() - t);
        total.push(res.timings?.total ?? NaN);
        bytes.push(JSON.stringify(res).length);
        // A ping sent as soon as the answer is in: waits for what the daemon still does after answering.
        if (interleave) {
          const t1 = performance.now();
          await d.client.call("daemon.ping", {} as never);
          after.push(performance.now() - t1);
        }
      }
      const gaps = wall.map((w, i) => w - total[i]!);
      console.log(
        `${kind}: socket p50 ${fmtMs(median(wall))}, stage total p50 ${fmtMs(median(total))}, gap p25/p50 ${fmtMs(percentile(gaps, 25))}/${fmtMs(median(gaps))}, response p50 ${Math.round(median(bytes) / 1024)} KB` +
          (interleave ? `, a ping right after: p50 ${fmtMs(median(after))}` : ""),
      );
    }
  } finally {
    await stopDaemon(d);
    rmSync(home, { recursive: true, force: true });
  }
}
