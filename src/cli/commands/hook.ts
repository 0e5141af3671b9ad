import type { Command } from "commander";
import { openclawPluginDir } from "../../install/self.js";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { absoluteSelector } from "../../workspace/resolve.js";
import { CliError, daemonWorkspace, printJson, type GlobalOptions } from "../context.js";
import { errorMessage } from "../../util/error-message.js";
import { CAPTURE_HOOK_BUDGET_MS, CONTEXT_HOOK_BUDGET_MS } from "../../hooks/events.js";

interface HookOptions extends GlobalOptions {
  settings?: string;
  dryRun?: boolean;
  command?: string;
}

/**
 * `cortexd hook <event>` runs an agent hook (normally dispatched to the lean entry by bin.js before
 * this CLI loads; this path serves `node main.js hook …` and global options before `hook`), and
 * `cortexd hook install|uninstall claude-code` edits Claude Code's settings.json.
 */
export function registerHook(program: Command): void {
  program
    .command("hook")
    .description(
      "run an agent hook: UserPromptSubmit | SessionStart | Stop | PreCompact | SessionEnd | auto (Claude Code), pre-turn | post-turn | checkpoint | sleep (generic); " +
        "or `hook install claude-code [--settings PATH] [--dry-run]` / `hook uninstall claude-code`",
    )
    .argument("<event>", "hook event, or install / uninstall")
    .argument("[args...]", "for install/uninstall: claude-code")
    .option("--settings <path>", "install: Claude Code settings file (default ~/.claude/settings.json)")
    .option("--dry-run", "install: print the merged settings instead of writing them")
    .option(
      "--command <cmd>",
      "install: hook command prefix (default: cortexd's launcher and this node, absolute paths)",
    )
    .option(
      "--timeout-ms <ms>",
      `run: the hook's budget for connect + call, then it answers empty (default ${CONTEXT_HOOK_BUDGET_MS} ms for the context hooks, ${CAPTURE_HOOK_BUDGET_MS} ms for capture; or CORTEXD_HOOK_TIMEOUT_MS)`,
    )
    .option("--budget <tokens>", "run: token budget of the recalled memories (default 2000, or CORTEXD_HOOK_BUDGET)")
    .option("--scope <scope>", "run: private (default) or group (never MEMORY.md/USER.md), or CORTEXD_HOOK_SCOPE")
    .option("--socket <path>", "run: the daemon's socket (default: as the config says)")
    .option("--debug", "run: say on stderr why a hook answered empty (or CORTEXD_HOOK_DEBUG=1)")
    .allowUnknownOption()
    .action(async (event: string, rest: string[], _o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<HookOptions>();
      if (event === "install" || event === "uninstall") {
        const agent = rest[0] ?? "claude-code";
        if (agent !== "claude-code")
          throw new CliError(
            `unknown agent "${agent}": only claude-code is supported (OpenClaw: the plugin in ${openclawPluginDir()}, MCP: cortexd mcp)`,
          );
        const { installClaudeHooks, shellQuote } = await import("../../hooks/install.js");
        // Absolute paths only: Claude Code runs hooks from the session's directory, not from here.
        const workspace = daemonWorkspace(opts);
        const extra = [
          ...(workspace ? [`--workspace ${shellQuote(workspace)}`] : []),
          ...(opts.config ? [`--config ${shellQuote(resolve(opts.config))}`] : []),
        ].join(" ");
        let r;
        try {
          r = installClaudeHooks({
            ...(opts.settings ? { settingsPath: opts.settings } : {}),
            ...(opts.command ? { command: opts.command } : {}),
            ...(extra ? { extraArgs: extra } : {}),
            dryRun: !!opts.dryRun,
            uninstall: event === "uninstall",
          });
        } catch (e) {
          throw new CliError(errorMessage(e));
        }
        const { devCheckoutNote } = await import("../../install/self.js");
        const note = event === "install" && !opts.command && r.changed ? devCheckoutNote() : undefined;
        if (note) process.stderr.write(`cortexd: note: ${note}\n`);
        if (opts.json)
          return printJson({
            settingsPath: r.settingsPath,
            changed: r.changed,
            backupPath: r.backupPath ?? null,
            events: r.events,
            ...(opts.dryRun ? { settings: r.settings } : {}),
          });
        if (opts.dryRun) {
          console.log(`# ${r.settingsPath} would become${r.changed ? "" : " (unchanged)"}:`);
          console.log(JSON.stringify(r.settings, null, 2));
          return;
        }
        if (!r.changed)
          console.log(
            `${r.settingsPath}: cortexd hooks already ${event === "install" ? "installed" : "absent"} (unchanged)`,
          );
        else
          console.log(
            `${r.settingsPath}: cortexd hooks ${event === "install" ? `installed (${r.events.join(", ")})` : "removed"}${r.backupPath ? `; backup at ${r.backupPath}` : ""}`,
          );
        return;
      }
      const { runHook } = await import("../../hooks/run.js");
      // The raw words after "hook" (hook flags such as --timeout-ms are the hook's own).
      const at = process.argv.indexOf("hook");
      const args = at >= 0 ? process.argv.slice(at + 1) : [event, ...rest];
      if (opts.workspace)
        args.push(
          "--workspace",
          /[/~.]/.test(opts.workspace)
            ? absoluteSelector(opts.workspace, process.cwd(), process.env.HOME || homedir())
            : opts.workspace,
        );
      if (opts.config) args.push("--config", resolve(opts.config));
      if (opts.dataDir) args.push("--data-dir", resolve(opts.dataDir));
      await runHook(args);
    });
}
