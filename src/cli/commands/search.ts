import type { Command } from "commander";
import { DaemonUnavailableError, RpcCallError, withClient } from "../../client/client.js";
import { ErrorCodes } from "../../rpc/error-codes.js";
import type { SearchRequest, SearchResponse } from "../../search/types.js";
import { CliError } from "../cli-error.js";
import type { GlobalOptions } from "../context.js";
import { daemonSocket, daemonWorkspace } from "../daemon-target.js";
import { printJson } from "../print-json.js";

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

async function searchViaDaemon(opts: SearchOptions, request: SearchRequest): Promise<SearchResponse | null> {
  const socket = daemonSocket(opts);
  if (!socket) return null;
  try {
    return await withClient(
      socket,
      (c) => {
        const workspace = daemonWorkspace(opts);
        return c.call("memory.search", { ...request, ...(workspace ? { workspace } : {}) });
      },
      { timeoutMs: 10_000 },
    );
  } catch (e) {
    if (e instanceof DaemonUnavailableError) return null;
    if (e instanceof RpcCallError && e.code === ErrorCodes.UnknownWorkspace) return null; // not one of the daemon's workspaces
    throw e;
  }
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
      if (minScore !== undefined && !(minScore >= 0 && minScore <= 1))
        throw new CliError(`--min-score must be between 0 and 1, got "${opts.minScore}"`);
      const request = {
        query: words.join(" "),
        ...(limit ? { limit } : {}),
        ...(minScore !== undefined ? { minScore } : {}),
        explain: !!opts.explain,
      };
      // Ask the running daemon (warm index and model); search in-process when it is not running.
      const viaDaemon = await searchViaDaemon(opts, request);
      const cli = viaDaemon ? null : await import("../context.js");
      const engine = cli ? await cli.openCliEngine(opts, { needsIndex: true }) : null;
      try {
        const res = viaDaemon ?? (await cli!.selectWorkspace(engine!, opts).searcher.search(request));
        if (opts.json) {
          printJson(res);
          return;
        }
        if (res.results.length === 0) console.log("no results");
        for (const r of res.results) {
          console.log(`${r.score.toFixed(3)} ${r.path}:${r.startLine}-${r.endLine}`);
          if (r.explain)
            console.log(
              `  ${Object.entries(r.explain)
                .map(([k, v]) => `${k}=${v}`)
                .join(" ")}`,
            );
          if (r.facts?.entities.length) console.log(`  entities: ${r.facts.entities.join(", ")}`);
          for (const l of r.facts?.links ?? []) console.log(`  ${l}`);
          console.log(r.snippet.replace(/^/gm, "  "));
          console.log();
        }
        if (res.fallback) console.error(`(${res.mode} search: ${res.fallback})`);
        if (res.timings)
          console.log(
            `timings (ms): ${Object.entries(res.timings)
              .map(([k, v]) => `${k} ${v}`)
              .join(", ")}`,
          );
      } finally {
        await engine?.close();
      }
    });
}
