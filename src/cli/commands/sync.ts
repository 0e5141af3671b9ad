import { resolve } from "node:path";
import type { Command } from "commander";
import { expandPath } from "../../config/paths.js";
import { syncInit } from "../../sync/init.js";
import { loadForCli, printJson, type GlobalOptions } from "../context.js";

/** `cortexd sync init`: memory on several machines (see docs/multi-device.md). */
export function registerSync(program: Command): void {
  const sync = program
    .command("sync")
    .description("memory on several machines: git merge rules (see docs/multi-device.md)");
  sync
    .command("init")
    .description(
      "in a git-backed workspace, write .gitattributes so daily logs and transcripts merge without conflicts (idempotent)",
    )
    .argument("[dir]", "the workspace root (default: --workspace, else the configured workspace)")
    .action((dir: string | undefined, _o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions>();
      // A directory given here is taken as is (it may not hold memory yet); else the one workspace resolution.
      const root = dir ? resolve(expandPath(dir)) : loadForCli(opts).selected.path;
      const r = syncInit(root);
      if (opts.json) return printJson(r);
      console.log(r.summary);
      for (const n of r.next) console.log(`next: ${n}`);
    });
}
