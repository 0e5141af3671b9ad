#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { ConfigError } from "../config/load.js";
import { registerIndex } from "./commands/index.js";
import { registerSearch } from "./commands/search.js";
import { registerDaemon } from "./commands/daemon.js";
import { registerStatus } from "./commands/status.js";
import { registerConfig } from "./commands/config.js";
import { registerService } from "./commands/service.js";
import { registerModel } from "./commands/model.js";
import { registerRecall } from "./commands/recall.js";
import { registerSave } from "./commands/save.js";
import { registerHook } from "./commands/hook.js";
import { registerMcp } from "./commands/mcp.js";
import { registerConsolidate } from "./commands/consolidate.js";
import { registerPromote } from "./commands/promote.js";
import { registerSync } from "./commands/sync.js";
import { CliError } from "./context.js";
import { VERSION } from "../version.js";
import { errorMessage } from "../util/error-message.js";


export function buildProgram(): Command {
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
  registerIndex(program);
  registerSearch(program);
  registerRecall(program);
  registerSave(program);
  registerHook(program);
  registerMcp(program);
  registerDaemon(program);
  registerStatus(program);
  registerConfig(program);
  registerService(program);
  registerModel(program);
  registerConsolidate(program);
  registerPromote(program);
  registerSync(program);
  return program;
}

async function main(): Promise<void> {
  try {
    await buildProgram().parseAsync(process.argv);
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
