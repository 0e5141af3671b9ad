import type { Command } from "commander";
import { DaemonUnavailableError, RpcError, withClient } from "../../client/client.js";
import { ErrorCodes } from "../../rpc/error-codes.js";
import type { RecallExplain, RecallResult } from "../../rpc/protocol.js";
import { CliError } from "../cli-error.js";
import type { GlobalOptions } from "../context.js";
import { daemonSocket, daemonWorkspace } from "../daemon-target.js";
import { printJson } from "../print-json.js";
import { readScope, visibleSet } from "../../visibility/visibility.js";
import { cliScope } from "./search.js";

interface RecallOptions extends GlobalOptions {
  budget?: string;
  scope?: string;
  group?: string;
  includeHistory?: boolean;
  explain?: boolean;
  referenceDate?: string;
}

export function registerRecall(program: Command): void {
  program
    .command("recall")
    .description("the memories a hook would inject for a prompt: a <cortex_memories> block within a token budget")
    .argument("<query...>", "the prompt")
    .option("-b, --budget <tokens>", "token budget (default 2000)")
    .option(
      "--scope <scope>",
      "private (default) or group (never MEMORY.md/USER.md, a private session's or another group's memories)",
    )
    .option("--group <key>", "with --scope group: the group's session key (its own memories too)")
    .option("--include-history", "also show memories superseded by newer ones (marked)")
    .option("--explain", "say why each memory was kept or dropped, or why nothing was returned")
    .option("--reference-date <date>", "the day relative dates in the prompt count from (YYYY-MM-DD; default today)")
    .action(async (words: string[], _o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<RecallOptions>();
      const budgetTokens = opts.budget === undefined ? undefined : Number(opts.budget);
      if (budgetTokens !== undefined && !(Number.isInteger(budgetTokens) && budgetTokens > 0))
        throw new CliError(`--budget must be a positive integer, got "${opts.budget}"`);
      const scope = cliScope(opts);
      const params = {
        query: words.join(" "),
        ...(budgetTokens ? { budgetTokens } : {}),
        ...(scope.scope ? { scope: scope.scope } : {}),
        ...(opts.includeHistory ? { includeHistory: true } : {}),
        ...(opts.explain ? { explain: true } : {}),
        ...(opts.referenceDate ? { referenceDate: opts.referenceDate } : {}),
      };
      if (opts.referenceDate && !/^\d{4}-\d{2}-\d{2}/.test(opts.referenceDate))
        throw new CliError(`--reference-date must be YYYY-MM-DD, got "${opts.referenceDate}"`);
      let res: RecallResult | null = null;
      const socket = daemonSocket(opts);
      try {
        const ws = daemonWorkspace(opts);
        if (socket)
          res = await withClient(
            socket,
            (c) =>
              c.call("memory.recall", {
                ...params,
                ...(scope.group ? { group: scope.group } : {}),
                client: "cli",
                ...(ws ? { workspace: ws } : {}),
              }),
            { timeoutMs: 10_000 },
          );
      } catch (e) {
        if (
          !(e instanceof DaemonUnavailableError) &&
          !(e instanceof RpcError && e.code === ErrorCodes.UnknownWorkspace)
        )
          throw e;
      }
      if (!res) {
        // No daemon: search in-process (only now load the index code).
        const [cli, { recall }] = await Promise.all([import("../context.js"), import("../../search/recall.js")]);
        const engine = await cli.openCliEngine(opts, { needsIndex: true });
        try {
          const ws = cli.selectWorkspace(engine, opts);
          const visible = visibleSet(readScope(scope.scope, scope.group));
          res = await recall(ws.searcher, ws.store, {
            ...params,
            ...(visible ? { visible } : {}),
            config: engine.config.recall,
          });
        } finally {
          await engine.close();
        }
      }
      if (opts.json) printJson(res);
      else {
        console.log(res.context || "(no relevant memories)");
        if (res.explain) console.log(formatExplain(res.explain));
      }
    });
}

/** The explanation as text: the decision, the prompt's words, each candidate's verdict. */
function formatExplain(e: RecallExplain): string {
  const out = [`relevance ${e.relevance}${e.empty ? `: ${e.empty}` : ""}`];
  if (e.dates.length)
    out.push(
      `dates: ${e.dates.map((d) => `"${d.text}" → ${d.from === d.to ? d.from : `${d.from}..${d.to}`}`).join(", ")}`,
    );
  if (e.gathering) out.push("gathering question: spread over days/sessions");
  if (e.search === "vector") out.push("searched by meaning only: the prompt has no topic word for the keyword leg");
  out.push(
    `prompt words (of ${e.chunks} chunks): ${e.words.map((w) => `${w.word} df ${w.df}${w.rare ? " topical" : ""}`).join(", ") || "none"}`,
  );
  for (const c of e.candidates)
    out.push(
      `${c.injected ? "+" : c.kept ? "~" : "-"} ${c.path}:${c.startLine}-${c.endLine} [${c.score.toFixed(2)}]${c.visibility ? ` (${c.visibility})` : ""} ${c.reason}`,
    );
  return out.join("\n");
}
