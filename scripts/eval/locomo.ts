/** `npm run eval -- locomo [dir] [options]`: options → runLocomo → report. */
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ChunkingSchema } from "../../src/config/schema.js";
import { intFlag, parseArgs, stringFlag } from "./args.js";
import type { Variant } from "./data.js";
import { DEFAULT_BUDGET_CHARS } from "./metrics.js";
import { formatReport, toJson } from "./report.js";
import { MODES, runLocomo, type Mode, type RunOptions } from "./run.js";

/** The repository root: this file is dist/scripts/eval/locomo.js (or scripts/eval/locomo.ts). */
export function repoRoot(): string {
  const here = fileURLToPath(new URL(".", import.meta.url));
  const up = /[/]dist[/]scripts[/]eval[/]?$/.test(here) ? "../../.." : "../..";
  return resolve(here, up);
}

export const LOCOMO_USAGE = `locomo [dir] — LoCoMo retrieval (default dir: <repo>/../shared/eval/locomo)
  --variant memory|sessions   index memory/ daily logs (default) or sessions/ transcripts
  --modes keyword,vector,hybrid   modes to run (default all three)
  --limit N          results per query (default 20)
  --conv ID[,ID]     only these conversations (e.g. conv-26)
  --weights V,T      hybrid vector/text weights (default: the search config defaults)
  --fusion X         search.fusion: weighted | rrf
  --search JSON      other search settings, e.g. '{"mmrLambda":1,"recencyWeight":0}'
  --recall JSON      recall settings, e.g. '{"relevance":"off"}' (the config's recall section)
  --dump FILE        append each question's recall explanation (candidates and verdicts) as JSONL
  --budget N         context budget in characters (default ${DEFAULT_BUDGET_CHARS})
  --max-tokens N --overlap N   chunking (default: the config defaults)
  --model PATH       a GGUF instead of the built-in model
  --data-dir DIR     where the built-in model is built/cached (default <tmp>/cortexd-eval)
  --json [--per-query]   machine-readable output on stdout
  --misses FILE      append each evidence turn missing from the recall context (rank, excerpted?) as JSONL
  --keep             keep the temp indexes; --quiet: no progress on stderr`;

export async function locomoCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  const known = new Set([
    "variant",
    "modes",
    "limit",
    "conv",
    "weights",
    "fusion",
    "search",
    "budget",
    "max-tokens",
    "overlap",
    "model",
    "data-dir",
    "json",
    "per-query",
    "keep",
    "quiet",
    "help",
    "misses",
    "recall",
    "dump",
  ]);
  const unknown = Object.keys(args.flags).filter((k) => !known.has(k));
  if (unknown.length) throw new Error(`unknown option(s): ${unknown.map((k) => `--${k}`).join(", ")}\n${LOCOMO_USAGE}`);
  if (args.positional.length > 1) throw new Error(`expected at most one directory, got: ${args.positional.join(" ")}`);

  const dir = args.positional[0] ? resolve(args.positional[0]) : resolve(repoRoot(), "../shared/eval/locomo");
  const variant = (stringFlag(args, "variant") ?? "memory") as Variant;
  if (variant !== "memory" && variant !== "sessions")
    throw new Error(`--variant must be memory or sessions (got ${variant})`);
  const modes = (stringFlag(args, "modes") ?? MODES.join(","))
    .split(",")
    .map((m) => m.trim())
    .filter(Boolean) as Mode[];
  const bad = modes.filter((m) => !(MODES as readonly string[]).includes(m));
  if (bad.length || modes.length === 0)
    throw new Error(`--modes takes ${MODES.join(",")} (got ${bad.join(",") || "nothing"})`);
  let weights: RunOptions["weights"];
  const w = stringFlag(args, "weights");
  if (w !== undefined) {
    const [v, t] = w.split(",").map(Number);
    if (v === undefined || t === undefined || !(v >= 0 && v <= 1) || !(t >= 0 && t <= 1))
      throw new Error(`--weights takes V,T in [0,1] (got ${w})`);
    weights = { vector: v, text: t };
  }
  const defaults = ChunkingSchema.parse({});
  const chunking = ChunkingSchema.parse({
    maxTokens: intFlag(args, "max-tokens", defaults.maxTokens, 32),
    overlapTokens: intFlag(args, "overlap", defaults.overlapTokens, 0),
  });
  const convs = stringFlag(args, "conv")
    ?.split(",")
    .map((c) => c.trim())
    .filter(Boolean);
  const fusion = stringFlag(args, "fusion");
  const searchJson = stringFlag(args, "search");
  let search: Record<string, unknown> | undefined;
  if (searchJson !== undefined) {
    try {
      search = JSON.parse(searchJson) as Record<string, unknown>;
    } catch {
      throw new Error(`--search takes a JSON object, e.g. '{"mmrLambda":1}' (got ${searchJson})`);
    }
  }
  const recallJson = stringFlag(args, "recall");
  let recallCfg: Record<string, unknown> | undefined;
  if (recallJson !== undefined) {
    try {
      recallCfg = JSON.parse(recallJson) as Record<string, unknown>;
    } catch {
      throw new Error(`--recall takes a JSON object, e.g. '{"relevance":"off"}' (got ${recallJson})`);
    }
  }
  const model = stringFlag(args, "model");
  const json = args.flags.json === true;
  const quiet = args.flags.quiet === true;
  const opts: RunOptions = {
    dir,
    variant,
    modes: [...new Set(modes)],
    limit: intFlag(args, "limit", 20, 1),
    ...(convs?.length ? { convs } : {}),
    ...(weights ? { weights } : {}),
    ...(fusion !== undefined ? { fusion } : {}),
    ...(search ? { search } : {}),
    ...(recallCfg ? { recall: recallCfg } : {}),
    ...(stringFlag(args, "dump") ? { dump: resolve(stringFlag(args, "dump")!) } : {}),
    budgetChars: intFlag(args, "budget", DEFAULT_BUDGET_CHARS, 1),
    chunking,
    dataDir: resolve(stringFlag(args, "data-dir") ?? join(tmpdir(), "cortexd-eval")),
    ...(model ? { model: resolve(model) } : {}),
    keep: args.flags.keep === true,
    ...(stringFlag(args, "misses") ? { misses: resolve(stringFlag(args, "misses")!) } : {}),
    ...(quiet ? {} : { log: (msg: string) => process.stderr.write(`[eval] ${msg}\n`) }),
  };
  const result = await runLocomo(opts);
  if (json) process.stdout.write(JSON.stringify(toJson(result, args.flags["per-query"] === true), null, 2) + "\n");
  else process.stdout.write(formatReport(result) + "\n");
  if (opts.keep && !quiet) process.stderr.write(`[eval] indexes kept in ${result.tmpDir}\n`);
  return 0;
}
