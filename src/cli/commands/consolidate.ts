import type { Command } from "commander";
import { DaemonUnavailableError, withClient } from "../../client/client.js";
import { consolidate } from "../../consolidate/run.js";
import { summarize, type ConsolidationReport } from "../../consolidate/report.js";
import { socketPathFor } from "../../daemon/socket.js";
import {
  CliError,
  daemonWorkspace,
  loadForCli,
  openCliEngine,
  printJson,
  selectWorkspace,
  type GlobalOptions,
} from "../context.js";

interface ConsolidateOptions extends GlobalOptions {
  dryRun?: boolean;
}

/** Runs consolidation through the daemon when it is up (its scheduler's report), else in this process. */
export async function runConsolidateCli(opts: ConsolidateOptions): Promise<ConsolidationReport[]> {
  const loaded = loadForCli(opts);
  const workspace = daemonWorkspace(opts);
  try {
    const { reports } = await withClient(
      socketPathFor(loaded),
      (c) => c.call("consolidate.run", { dryRun: opts.dryRun ?? false, ...(workspace ? { workspace } : {}) }),
      { timeoutMs: 600_000 },
    );
    return reports;
  } catch (e) {
    if (!(e instanceof DaemonUnavailableError)) throw e;
  }
  const engine = await openCliEngine(opts, { deferProvider: true });
  try {
    const targets = opts.workspace ? [selectWorkspace(engine, opts)] : engine.workspaces;
    const reports: ConsolidationReport[] = [];
    for (const ws of targets) {
      reports.push(
        await consolidate(ws, {
          dryRun: opts.dryRun ?? false,
          cacheMax: engine.config.cache.maxEntries,
          autoPromote: engine.config.schedule.autoPromote,
        }),
      );
    }
    return reports;
  } finally {
    await engine.close();
  }
}

export function registerConsolidate(program: Command): void {
  program
    .command("consolidate")
    .description("group duplicate memories, mark superseded facts, list promotion candidates, run index maintenance")
    .option("-n, --dry-run", "compute and report, change nothing")
    .action(async (_o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<ConsolidateOptions>();
      const reports = await runConsolidateCli(opts);
      if (opts.json) printJson({ reports });
      else {
        for (const r of reports) {
          console.log(summarize(r));
          for (const ex of r.supersessionExamples) console.log(`  superseded: ${ex}`);
          if (r.backup) console.log(`  MEMORY.md backed up to ${r.backup}`);
        }
      }
      if (reports.some((r) => r.error || (r.maintenance && r.maintenance.quickCheck !== "ok"))) {
        throw new CliError("consolidation found a problem (see the report)");
      }
    });
}
