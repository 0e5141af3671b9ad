import type { Command } from "commander";
import { socketPathFor } from "../../daemon/socket.js";
import { daemonWorkspace, loadForCli, type GlobalOptions } from "../context.js";

/** `cortexd mcp`: an MCP server on stdio whose tools proxy to the running daemon. */
export function registerMcp(program: Command): void {
  program
    .command("mcp")
    .description(
      "MCP server on stdio (tools memory_search, memory_get, memory_save, memory_status) proxying to the daemon",
    )
    .option("--timeout-ms <ms>", "per-call timeout talking to the daemon", "15000")
    .action(async (_o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions & { timeoutMs?: string }>();
      const loaded = loadForCli(opts);
      const { runMcpServer } = await import("../../mcp/server.js");
      const { saveMemory } = await import("../../client/save-memory.js");
      const workspace = daemonWorkspace(opts);
      const timeoutMs = Number(opts.timeoutMs) > 0 ? Number(opts.timeoutMs) : 15_000;
      await runMcpServer({
        socketPath: socketPathFor(loaded),
        ...(workspace ? { workspace } : {}),
        timeoutMs,
        save: (params) => saveMemory(loaded, params, { daemon: workspace, target: loaded.selected }, { timeoutMs }),
      });
    });
}
