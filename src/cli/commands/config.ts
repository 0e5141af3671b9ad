import type { Command } from "commander";
import { loadConfig } from "../../config/load.js";
import { defaultConfigPath } from "../../config/paths.js";
import { loadForCli, printJson, type GlobalOptions } from "../context.js";

export function registerConfig(program: Command): void {
  const config = program.command("config").description("show, locate or validate the configuration");
  config
    .command("show")
    .description("print the effective configuration (file + environment + defaults)")
    .action((_o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions>();
      const loaded = loadForCli(opts);
      printJson({ file: loaded.file, dataDir: loaded.dataDir, config: loaded.config });
    });
  config
    .command("path")
    .description("print the config file path")
    .action((_o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions>();
      console.log(opts.config ?? process.env.CORTEXD_CONFIG ?? defaultConfigPath());
    });
  config
    .command("validate")
    .description("check the config file; exit 0 when valid, 78 with the problem otherwise")
    .argument("[file]", "file to check (default: the config path)")
    .action((file: string | undefined, _o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions>();
      const loaded = loadConfig({ ...(file || opts.config ? { file: file ?? opts.config } : {}) });
      if (opts.json) printJson({ valid: true, file: loaded.file });
      else console.log(loaded.file ? `${loaded.file}: valid` : "no config file: the defaults are used (valid)");
    });
}
