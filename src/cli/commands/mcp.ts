import type { Command } from "commander";
import { socketPathFor } from "../../daemon/socket.js";
import { daemonWorkspace, loadForCli, type GlobalOptions } from "../context.js";
import { CliError } from "../cli-error.js";

/** `cortexd mcp`: an MCP server on stdio whose tools proxy to the running daemon. */
export function registerMcp(program: Command): void {
  program
    .command("mcp")
    .description(
      "MCP server on stdio (tools memory_search, memory_get, memory_save, memory_status) proxying to the daemon",
    )
    .option("--timeout-ms <ms>", "per-call timeout talking to the daemon", "15000")
    .option(
      "--scope <scope>",
      "private (default) or group: the server speaks for a group conversation (docs/security.md)",
    )
    .option("--group <key>", "with --scope group: the group's session key (it sees that group's memories too)")
    .action(async (_o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions & { timeoutMs?: string; scope?: string; group?: string }>();
      if (opts.scope !== undefined && opts.scope !== "private" && opts.scope !== "group")
        throw new CliError(`--scope must be "private" or "group", got "${opts.scope}"`);
      if (opts.group !== undefined && opts.scope !== "group") throw new CliError(`--group needs --scope group`);
      const loaded = loadForCli(opts);
      const { runMcpServer } = await import("../../mcp/server.js");
      const { saveMemory } = await import("../../client/save-memory.js");
      const workspace = daemonWorkspace(opts);
      const timeoutMs = Number(opts.timeoutMs) > 0 ? Number(opts.timeoutMs) : 15_000;
      await runMcpServer({
        socketPath: socketPathFor(loaded),
        ...(workspace ? { workspace } : {}),
        timeoutMs,
        ...(opts.scope === "group" ? { group: opts.group ? { group: opts.group } : {} } : {}),
        save: (params) => saveMemory(loaded, params, { daemon: workspace, target: loaded.selected }, { timeoutMs }),
      });
    });
}
