import type { Command } from "commander";
import { DaemonUnavailableError, RpcCallError, withClient } from "../../client/client.js";
import { socketPathFor } from "../../daemon/socket.js";
import { ErrorCodes, type RecallResult } from "../../rpc/protocol.js";
import { recall } from "../../search/recall.js";
import { CliError, daemonWorkspace, loadForCli, openCliEngine, printJson, selectWorkspace, type GlobalOptions } from "../context.js";

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
      try {
        const ws = daemonWorkspace(opts);
        res = await withClient(socketPathFor(loadForCli(opts)), (c) => c.call("memory.recall", { ...params, ...(ws ? { workspace: ws } : {}) }), { timeoutMs: 10_000 });
      } catch (e) {
        if (!(e instanceof DaemonUnavailableError) && !(e instanceof RpcCallError && e.code === ErrorCodes.UnknownWorkspace)) throw e;
      }
      if (!res) {
        const engine = await openCliEngine(opts, { needsIndex: true });
        try {
          const ws = selectWorkspace(engine, opts);
          res = await recall(ws.searcher, ws.store, params);
        } finally {
          await engine.close();
        }
      }
      if (opts.json) printJson(res);
      else console.log(res.context || "(no memories found)");
    });
}
