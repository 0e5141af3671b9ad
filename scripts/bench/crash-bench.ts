import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { ensureBuiltinModel } from "../../src/embed/builtin/ensure.js";
import {
  killLiveDaemons,
  PHASES,
  removeTrialDir,
  runCrashTrial,
  type CrashTrialResult,
  type Phase,
} from "./crash-trial.js";
import { benchPath, freshDir, type Args } from "./util.js";

/**
 * `npm run bench -- crash [--trials 50] [--seed 1] [--phase index|saves|consolidate|mixed] [--keyword-only] [--keep]`
 *
 * SIGKILLs a real daemon at seeded random moments (see crash-trial.ts) and checks, after each,
 * that acknowledged saves are in the files, backups are complete, and the restarted daemon's index
 * equals a clean build. Prints one line per trial and a summary; exits 1 on any failure.
 */
export async function benchCrash(args: Args): Promise<void> {
  const trials = Number(args.flags.trials ?? 50);
  const seed0 = Number(args.flags.seed ?? 1);
  const phase = args.flags.phase as Phase | undefined;
  if (!Number.isInteger(trials) || trials < 1)
    throw new Error(`--trials must be a positive integer (got ${String(args.flags.trials)})`);
  if (phase !== undefined && !PHASES.includes(phase))
    throw new Error(`--phase must be one of ${PHASES.join(", ")} (got ${phase})`);
  const cli = resolve(import.meta.dirname, "../../src/cli/main.js");
  let modelsDir: string | undefined;
  if (!args.flags["keyword-only"]) {
    modelsDir = benchPath("crash-models");
    mkdirSync(modelsDir, { recursive: true });
    await ensureBuiltinModel(modelsDir);
  }
  const base = freshDir(benchPath("crash"));
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    process.once(sig, () => {
      killLiveDaemons();
      process.exit(130);
    });
  }
  console.log(
    `crash: ${trials} trials from seed ${seed0}, ${modelsDir ? "built-in model (vectors on)" : "keyword-only"}${phase ? `, phase ${phase}` : ""}`,
  );
  const results: CrashTrialResult[] = [];
  const t0 = performance.now();
  for (let i = 0; i < trials; i++) {
    const dir = join(base, `trial-${i}`);
    mkdirSync(dir, { recursive: true });
    const res = await runCrashTrial({
      seed: seed0 + i,
      dir,
      cli,
      ...(modelsDir ? { modelsDir } : {}),
      ...(phase ? { phase } : {}),
    });
    results.push(res);
    console.log(
      `trial ${String(i + 1).padStart(3)}  seed ${res.seed}  ${res.phase.padEnd(11)} ${String(res.files).padStart(3)} files  kill @${String(res.killAfterMs).padStart(4)} ms  ${String(res.acked).padStart(3)} saves acked${res.promoted ? "  promoted" : "          "}  ${res.problems.length ? "FAIL" : "ok"}  (${(res.ms / 1000).toFixed(1)} s)`,
    );
    for (const p of res.problems) console.log(`    ${p}`);
    if (!res.problems.length && !args.flags.keep) removeTrialDir(dir);
  }
  const failed = results.filter((r) => r.problems.length);
  const byPhase = PHASES.map((p) => `${p} ${results.filter((r) => r.phase === p).length}`).join(", ");
  const acked = results.reduce((n, r) => n + r.acked, 0);
  const promoted = results.filter((r) => r.promoted).length;
  console.log(
    `\ncrash: ${results.length} trials (${byPhase}), ${acked} acknowledged saves checked, ${promoted} killed after a promotion, ${failed.length} failures, ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
  if (failed.length) {
    console.log(`failed seeds: ${failed.map((r) => r.seed).join(", ")} (their directories are kept in ${base})`);
    process.exitCode = 1;
  }
}
