#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { ConfigError } from "../config/config-error.js";
import { registerCommands } from "./commands.js";
import { CliError } from "./cli-error.js";
import { VERSION } from "../version.js";
import { errorMessage } from "../util/error-message.js";
import { openFilesMessage } from "./fd-limit.js";

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** The program with the command that `args` (argv after node and the script) names, or with all of them. */
export async function buildProgram(args: readonly string[] = process.argv.slice(2)): Promise<Command> {
  const program = new Command()
    .name("cortexd")
    .description("Local memory engine for AI agents: indexes memory files and answers recall.")
    .version(VERSION)
    .option("-c, --config <file>", "config file (default $XDG_CONFIG_HOME/cortexd/config.json)")
    .option(
      "-w, --workspace <dir|name>",
      "workspace root or name (an unconfigured dir with memory files is indexed on its own; repeat for `run` only)",
      collect,
    )
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
      throw new CliError(
        `--workspace was given ${list.length} times (${list.join(", ")}): only \`cortexd run\` serves several workspaces; give one`,
      );
    }
    program.setOptionValue("workspace", list[0]);
    program.setOptionValue("workspaces", list);
  });
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
      process.stderr.write(`${e.message.startsWith("cortexd ") ? "" : "cortexd: "}${e.message}\n`);
      process.exitCode = e instanceof CliError ? e.exitCode : 78;
      return;
    }
    const fds = openFilesMessage(e);
    process.stderr.write(`${fds ?? `cortexd: ${errorMessage(e)}`}\n`);
    if (process.env.CORTEXD_DEBUG) process.stderr.write(`${(e as Error).stack}\n`);
    process.exitCode = fds ? 71 : 1; // EX_OSERR: out of file descriptors
  }
}

await main();
