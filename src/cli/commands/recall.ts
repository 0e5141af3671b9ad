import type { Command } from "commander";
import { DaemonUnavailableError, RpcCallError, withClient } from "../../client/client.js";
import { ErrorCodes } from "../../rpc/error-codes.js";
import type { RecallResult } from "../../rpc/protocol.js";
import { CliError } from "../cli-error.js";
import type { GlobalOptions } from "../context.js";
import { daemonSocket, daemonWorkspace } from "../daemon-target.js";
import { printJson } from "../print-json.js";

interface RecallOptions extends GlobalOptions {
  budget?: string;
  scope?: string;
  includeHistory?: boolean;
}

export function registerRecall(program: Command): void {
  program
    .command("recall")
    .description("the memories a hook would inject for a prompt: a <cortex_memories> block within a token budget")
    .argument("<query...>", "the prompt")
    .option("-b, --budget <tokens>", "token budget (default 2000)")
    .option("--scope <scope>", "private (default) or group (never MEMORY.md/USER.md)")
    .option("--include-history", "also show memories superseded by newer ones (marked)")
    .action(async (words: string[], _o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<RecallOptions>();
      const budgetTokens = opts.budget === undefined ? undefined : Number(opts.budget);
      if (budgetTokens !== undefined && !(Number.isInteger(budgetTokens) && budgetTokens > 0)) throw new CliError(`--budget must be a positive integer, got "${opts.budget}"`);
      if (opts.scope && opts.scope !== "private" && opts.scope !== "group") throw new CliError(`--scope must be "private" or "group", got "${opts.scope}"`);
      const params = {
        query: words.join(" "),
        ...(budgetTokens ? { budgetTokens } : {}),
        ...(opts.scope ? { scope: opts.scope as "private" | "group" } : {}),
        ...(opts.includeHistory ? { includeHistory: true } : {}),
      };
      let res: RecallResult | null = null;
      const socket = daemonSocket(opts);
      try {
        const ws = daemonWorkspace(opts);
        if (socket) res = await withClient(socket, (c) => c.call("memory.recall", { ...params, ...(ws ? { workspace: ws } : {}) }), { timeoutMs: 10_000 });
      } catch (e) {
        if (!(e instanceof DaemonUnavailableError) && !(e instanceof RpcCallError && e.code === ErrorCodes.UnknownWorkspace)) throw e;
      }
      if (!res) {
        // No daemon: search in-process (only now load the index code).
        const [cli, { recall }] = await Promise.all([import("../context.js"), import("../../search/recall.js")]);
        const engine = await cli.openCliEngine(opts, { needsIndex: true });
        try {
          const ws = cli.selectWorkspace(engine, opts);
          res = await recall(ws.searcher, ws.store, params);
        } finally {
          await engine.close();
        }
      }
      if (opts.json) printJson(res);
      else console.log(res.context || "(no memories found)");
    });
}
