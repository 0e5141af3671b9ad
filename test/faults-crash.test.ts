import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PHASES, runCrashTrial } from "../scripts/bench/crash-trial.js";
import { ensureBuiltinModel } from "../src/embed/builtin/ensure.js";
import { CLI } from "./helpers/cli.js";
import { tempDir } from "./helpers/workspace.js";

/**
 * A few of the seeded SIGKILL trials that `npm run bench -- crash --trials 50` runs (see
 * scripts/bench/crash-trial.ts): one per phase, with the built-in model so vectors are compared too.
 */
describe("crash consistency: a daemon SIGKILLed mid-work (one seeded trial per phase)", () => {
  let modelsDir: string | undefined;
  for (const [i, phase] of PHASES.entries()) {
    it(`${phase}: acknowledged saves are in the files and the restarted index equals a clean build`, async () => {
      if (!modelsDir) {
        modelsDir = join(tempDir("cortexd-crash-models-"), "models");
        mkdirSync(modelsDir, { recursive: true });
        await ensureBuiltinModel(modelsDir);
      }
      const dir = tempDir("cortexd-crash-");
      const res = await runCrashTrial({ seed: 100 + i, dir, cli: CLI, modelsDir, phase, files: 50 });
      expect(res.problems).toEqual([]);
      expect(res.phase).toBe(phase);
    }, 60_000);
  }
});
