import { resolve } from "node:path";
import type { Command } from "commander";
import { expandPath } from "../../config/paths.js";
import { syncInit } from "../../multi-device/init.js";
import { DaemonUnavailableError, withClient } from "../../client/client.js";
import { socketPathFor } from "../../daemon/socket.js";
import { CliError, daemonWorkspace, loadForCli, printJson, type GlobalOptions } from "../context.js";

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
  sync
    .command("now")
    .description(
      "run the scheduled git sync now (commit cortexd's appends, pull with a merge, push): every workspace with sync.git, or --workspace",
    )
    .action(async (_o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions>();
      const workspace = daemonWorkspace(opts);
      let runs;
      try {
        runs = await withClient(
          socketPathFor(loadForCli(opts)),
          (c) => c.call("sync.git", workspace ? { workspace } : {}),
          { timeoutMs: 300_000 },
        );
      } catch (e) {
        if (e instanceof DaemonUnavailableError)
          throw new CliError(`${e.message}: the git sync runs in the daemon; start it with \`cortexd start\``);
        throw e;
      }
      if (opts.json) printJson({ runs });
      else
        for (const r of runs) {
          console.log(`${r.workspace}: ${r.gitSync.state}: ${r.gitSync.lastResult ?? ""}`);
          if (r.gitSync.fix) console.log(`  fix: ${r.gitSync.fix}`);
        }
      if (runs.some((r) => r.gitSync.state !== "ok")) process.exitCode = 1;
    });
}
