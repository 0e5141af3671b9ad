#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { ConfigError } from "../config/config-error.js";
import { registerCommands } from "./commands.js";
import { CliError } from "./cli-error.js";
import { VERSION } from "../version.js";
import { errorMessage } from "../util/error-message.js";


/** The program with the command that `args` (argv after node and the script) names, or with all of them. */
export async function buildProgram(args: readonly string[] = process.argv.slice(2)): Promise<Command> {
  const program = new Command()
    .name("cortexd")
    .description("Local memory engine for AI agents: indexes memory files and answers recall.")
    .version(VERSION)
    .option("-c, --config <file>", "config file (default $XDG_CONFIG_HOME/cortexd/config.json)")
    .option("-w, --workspace <dir|name>", "workspace root or namespace (an unconfigured dir is indexed on its own)")
    .option("--data-dir <dir>", "where indexes and models live (default $XDG_DATA_HOME/cortexd)")
    .option("--json", "machine-readable output")
    .option("-v, --verbose", "debug logs on stderr")
    .showHelpAfterError();
  await registerCommands(program, args);
  return program;
}

async function main(): Promise<void> {
  try {
    await (await buildProgram()).parseAsync(process.argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      process.exitCode = e.exitCode;
      return;
    }
    if (e instanceof CliError || e instanceof ConfigError) {
      process.stderr.write(`cortexd: ${e.message}\n`);
      process.exitCode = e instanceof CliError ? e.exitCode : 78;
      return;
    }
    process.stderr.write(`cortexd: ${errorMessage(e)}\n`);
    if (process.env.CORTEXD_DEBUG) process.stderr.write(`${(e as Error).stack}\n`);
    process.exitCode = 1;
  }
}

await main();
