import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import {
  batchOfGets,
  batchOfSearches,
  oversizedBatch,
  prototypeKeys,
  runAttack,
  summarize,
  writeAndLeave,
  type AttackResult,
} from "./abuse-attacks.js";
import { fileAttacks } from "./abuse-files-bench.js";
import { spawnDaemon, stopDaemon, waitIndexed } from "./daemon-proc.js";
import { benchPath, freshDir, type Args } from "./util.js";

/**
 * `npm run bench -- abuse`: the attacks of issue #14 against a real daemon (keyword-only), one after
 * another, printing for each the daemon's peak RSS, the longest wait of another client's
 * daemon.ping, and whether every request got an answer; then the hostile files and history growth
 * of issue #34 (abuse-files-bench.ts; `--files no` leaves them out). `--scale N` multiplies the request counts.
 */
export async function benchAbuse(args: Args): Promise<void> {
  const scale = Number(args.flags.scale ?? 1);
  const base = freshDir(benchPath("abuse"));
  const root = join(base, "ws");
  mkdirSync(join(root, "memory", "topics"), { recursive: true });
  writeFileSync(join(root, "MEMORY.md"), "# Memory\n\n- the release pipeline is owned by the heron team\n");
  const log = ["# 2026-01-01", ""];
  for (let i = 0; i < 48_000; i++)
    log.push(`- ${i}: service ${i % 97} was deployed after the heron review, notes ${"x".repeat(i % 13)}`);
  writeFileSync(join(root, "memory", "2026-01-01.md"), log.join("\n") + "\n");
  for (let i = 0; i < 300; i++)
    writeFileSync(
      join(root, "memory", "topics", `k-${i}.md`),
      `# Topic ${i}\n\n- kingfisher sighting ${i} at pond ${i % 23}, ${"blue ".repeat(1 + (i % 5))}wings\n`,
    );

  const n = (x: number) => Math.max(1, Math.round(x * scale));
  const results: AttackResult[] = [];
  const d = await spawnDaemon({ home: join(base, "home"), root, provider: "none", stderr: "ignore" });
  try {
    await waitIndexed(d, "none");
    const t = { socket: d.socket, pid: d.child.pid! };
    const attacks: [string, Parameters<typeof runAttack>[2]][] = [
      ["prototype ids (every method)", prototypeKeys],
      [`batch of ${n(500)} memory.get, 5 MB log`, batchOfGets("memory/2026-01-01.md", n(500))],
      [`batch of ${n(300)} memory.search limit 200`, batchOfSearches("kingfisher pond", n(300))],
      ["batch of 5,000 memory.search (one line)", oversizedBatch("kingfisher pond", 5000)],
      [`${n(20)} clients × 1,000 searches, leave`, writeAndLeave("kingfisher pond", n(20), 1000)],
    ];
    for (const [name, attack] of attacks) {
      results.push(await runAttack(name, t, attack));
      console.error(`done: ${name}`);
    }
  } finally {
    await stopDaemon(d);
  }
  // Hostile files and history growth (issue #34), each on a daemon of its own.
  const notes: string[] = [];
  if (args.flags.files !== "no") results.push(...(await fileAttacks(base, n(3000), notes)));
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GB; load ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}; node ${process.version}`,
  );
  console.log(summarize(results));
  for (const line of notes) console.log(line);
}
