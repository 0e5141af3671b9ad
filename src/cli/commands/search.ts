import type { Command } from "commander";
import { DaemonUnavailableError, RpcError, withClient } from "../../client/client.js";
import { ErrorCodes } from "../../rpc/error-codes.js";
import type { SearchRequest, SearchResponse } from "../../search/types.js";
import { CliError } from "../cli-error.js";
import type { GlobalOptions } from "../context.js";
import { daemonSocket, daemonWorkspace } from "../daemon-target.js";
import { printJson } from "../print-json.js";
import { readScope, visibleSet } from "../../visibility/visibility.js";

/** --scope / --group as request params (checked). */
export function cliScope(opts: { scope?: string; group?: string }): { scope?: "private" | "group"; group?: string } {
  if (opts.scope !== undefined && opts.scope !== "private" && opts.scope !== "group")
    throw new CliError(`--scope must be "private" or "group", got "${opts.scope}"`);
  if (opts.group !== undefined && opts.scope !== "group") throw new CliError("--group needs --scope group");
  return { ...(opts.scope ? { scope: opts.scope } : {}), ...(opts.group ? { group: opts.group } : {}) };
}

interface SearchOptions extends GlobalOptions {
  limit?: string;
  minScore?: string;
  explain?: boolean;
  scope?: string;
  group?: string;
}

function positiveInt(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`${name} must be a positive integer, got "${value}"`);
  return n;
}

async function searchViaDaemon(
  opts: SearchOptions,
  request: SearchRequest & { scope?: "private" | "group"; group?: string },
): Promise<SearchResponse | null> {
  const socket = daemonSocket(opts);
  if (!socket) return null;
  try {
    return await withClient(
      socket,
      (c) => {
        const workspace = daemonWorkspace(opts);
        return c.call("memory.search", { ...request, client: "cli", ...(workspace ? { workspace } : {}) });
      },
      { timeoutMs: 10_000 },
    );
  } catch (e) {
    if (e instanceof DaemonUnavailableError) return null;
    if (e instanceof RpcError && e.code === ErrorCodes.UnknownWorkspace) return null; // not one of the daemon's workspaces
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
    .option("--explain", "show each ranking stage's contribution and who may see each result")
    .option("--scope <scope>", "private (default: everything) or group (what a group conversation may see)")
    .option("--group <key>", "with --scope group: the group's session key (its own memories too)")
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
      const scope = cliScope(opts);
      const visible = visibleSet(readScope(scope.scope, scope.group));
      // Ask the running daemon (warm index and model); search in-process when it is not running.
      const viaDaemon = await searchViaDaemon(opts, { ...request, ...scope });
      const cli = viaDaemon ? null : await import("../context.js");
      const engine = cli ? await cli.openCliEngine(opts, { needsIndex: true }) : null;
      try {
        const res =
          viaDaemon ??
          (await cli!.selectWorkspace(engine!, opts).searcher.search({ ...request, ...(visible ? { visible } : {}) }));
        if (opts.json) {
          printJson(res);
          return;
        }
        if (res.results.length === 0) console.log("no results");
        if (res.entities)
          console.log(
            `entities in the prompt: ${res.entities.prompt.join(", ")}${res.entities.linked.length ? `; co-occurring, followed: ${res.entities.linked.join(", ")}` : ""}\n`,
          );
        for (const r of res.results) {
          console.log(
            `${r.score.toFixed(3)} ${r.path}:${r.startLine}-${r.endLine}${r.visibility ? ` [${r.visibility}]` : ""}`,
          );
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
