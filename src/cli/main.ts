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
import { registerInit } from "./commands/init.js";
import { CliError } from "./context.js";
import { VERSION } from "../version.js";
import { errorMessage } from "../util/error-message.js";


const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function buildProgram(): Command {
  const program = new Command()
    .name("cortexd")
    .description("Local memory engine for AI agents: indexes memory files and answers recall.")
    .version(VERSION)
    .option("-c, --config <file>", "config file (default $XDG_CONFIG_HOME/cortexd/config.json)")
    .option("-w, --workspace <dir|name>", "workspace root or name (an unconfigured dir with memory files is indexed on its own; repeat for `run` only)", collect)
    .option("--data-dir <dir>", "where indexes and models live (default $XDG_DATA_HOME/cortexd)")
    .option("--json", "machine-readable output")
    .option("-v, --verbose", "debug logs on stderr")
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError();
  // -w may be repeated: several workspaces for `run`, refused elsewhere (never silently the last).
  program.hook("preAction", (_program, action) => {
    const list = program.getOptionValue("workspace") as string[] | string | undefined;
    if (!Array.isArray(list)) return;
    if (list.length > 1 && action.name() !== "run") {
      throw new CliError(`--workspace was given ${list.length} times (${list.join(", ")}): only \`cortexd run\` serves several workspaces; give one`);
    }
    program.setOptionValue("workspace", list[0]);
    program.setOptionValue("workspaces", list);
  });
  registerInit(program);
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
      process.stderr.write(`${e.message.startsWith("cortexd ") ? "" : "cortexd: "}${e.message}\n`);
      process.exitCode = e instanceof CliError ? e.exitCode : 78;
      return;
    }
    process.stderr.write(`cortexd: ${errorMessage(e)}\n`);
    if (process.env.CORTEXD_DEBUG) process.stderr.write(`${(e as Error).stack}\n`);
    process.exitCode = 1;
  }
}

await main();
