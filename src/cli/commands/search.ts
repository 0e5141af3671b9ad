import type { Command } from "commander";
import { CliError, openCliEngine, printJson, selectWorkspace, type GlobalOptions } from "../context.js";

interface SearchOptions extends GlobalOptions {
  limit?: string;
  minScore?: string;
  explain?: boolean;
}

function positiveInt(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`${name} must be a positive integer, got "${value}"`);
  return n;
}

export function registerSearch(program: Command): void {
  program
    .command("search")
    .description("search the index (hybrid keyword + vector)")
    .argument("<query...>", "what to look for")
    .option("-n, --limit <n>", "number of results")
    .option("--min-score <x>", "drop results below this score (0..1)")
    .option("--explain", "show each ranking stage's contribution")
    .action(async (words: string[], _o: SearchOptions, cmd: Command) => {
      const opts = cmd.optsWithGlobals<SearchOptions>();
      const limit = positiveInt(opts.limit, "--limit");
      const minScore = opts.minScore === undefined ? undefined : Number(opts.minScore);
      if (minScore !== undefined && !(minScore >= 0 && minScore <= 1)) throw new CliError(`--min-score must be between 0 and 1, got "${opts.minScore}"`);
      const engine = await openCliEngine(opts);
      try {
        const ws = selectWorkspace(engine, opts);
        const res = await ws.searcher.search({
          query: words.join(" "),
          ...(limit ? { limit } : {}),
          ...(minScore !== undefined ? { minScore } : {}),
          explain: !!opts.explain,
        });
        if (opts.json) {
          printJson(res);
          return;
        }
        if (res.results.length === 0) console.log("no results");
        for (const r of res.results) {
          console.log(`${r.score.toFixed(3)} ${r.path}:${r.startLine}-${r.endLine}`);
          if (r.explain) console.log(`  ${Object.entries(r.explain).map(([k, v]) => `${k}=${v}`).join(" ")}`);
          console.log(r.snippet.replace(/^/gm, "  "));
          console.log();
        }
        if (res.fallback) console.error(`(${res.mode} search: ${res.fallback})`);
      } finally {
        await engine.close();
      }
    });
}
