import type { Command } from "commander";

/** Adds one command (with its subcommands) to the program. */
export type Register = (program: Command) => void;

/**
 * Every top-level command and where it lives. A command's module is imported only when that
 * command runs (or for help, which lists them all), so `cortexd --version` or `cortexd status`
 * never loads SQLite, the embedding model or the index code that other commands need. A new
 * command is one line here.
 */
export const COMMANDS: ReadonlyMap<string, () => Promise<Register>> = new Map<string, () => Promise<Register>>([
  ["init", async () => (await import("./commands/init.js")).registerInit],
  ["index", async () => (await import("./commands/index.js")).registerIndex],
  ["search", async () => (await import("./commands/search.js")).registerSearch],
  ["recall", async () => (await import("./commands/recall.js")).registerRecall],
  ["save", async () => (await import("./commands/save.js")).registerSave],
  ["hook", async () => (await import("./commands/hook.js")).registerHook],
  ["mcp", async () => (await import("./commands/mcp.js")).registerMcp],
  ["run", daemonCommands],
  ["start", daemonCommands],
  ["stop", daemonCommands],
  ["restart", daemonCommands],
  ["status", async () => (await import("./commands/status.js")).registerStatus],
  ["config", async () => (await import("./commands/config.js")).registerConfig],
  ["service", async () => (await import("./commands/service.js")).registerService],
  ["model", async () => (await import("./commands/model.js")).registerModel],
  ["consolidate", async () => (await import("./commands/consolidate.js")).registerConsolidate],
  ["promote", async () => (await import("./commands/promote.js")).registerPromote],
  ["sync", async () => (await import("./commands/sync.js")).registerSync],
  ["audit", async () => (await import("./commands/audit.js")).registerAudit],
  ["ui", async () => (await import("./commands/ui.js")).registerUi],
]);

async function daemonCommands(): Promise<Register> {
  return (await import("./commands/daemon.js")).registerDaemon;
}

/** The program's options that take a value (so the word after them is not the command). */
const GLOBAL_VALUE_OPTIONS = new Set(["-c", "--config", "-w", "--workspace", "--data-dir"]);

/**
 * The command named on the command line (args without node and the script), or undefined when
 * there is none or it is unknown: then every command is registered, for help and for commander's
 * "unknown command" suggestions.
 */
export function commandNamed(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") return undefined;
    if (GLOBAL_VALUE_OPTIONS.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith("-")) continue;
    return COMMANDS.has(a) ? a : undefined;
  }
  return undefined;
}

/**
 * Registers the command the arguments name; none for a bare `--version`; all of them otherwise
 * (help, no arguments, an unknown command).
 */
export async function registerCommands(program: Command, args: readonly string[]): Promise<void> {
  const name = commandNamed(args);
  if (!name && args.some((a) => a === "-V" || a === "--version") && !args.some((a) => a === "-h" || a === "--help"))
    return;
  const loaders = name ? [COMMANDS.get(name)!] : [...new Set(COMMANDS.values())];
  for (const register of await Promise.all(loaders.map((load) => load()))) register(program);
}
