import type { Command } from "commander";
import { consolidate } from "../../consolidate/run.js";
import { summarize, type ConsolidationReport } from "../../consolidate/report.js";
import { CliError, printJson, type GlobalOptions } from "../context.js";
import { runInDaemonOrHere } from "../daemon-or-local.js";

interface ConsolidateOptions extends GlobalOptions {
  dryRun?: boolean;
}

/** Runs consolidation through the daemon when it is up (its scheduler's report), else in this process. */
export async function runConsolidateCli(opts: ConsolidateOptions): Promise<ConsolidationReport[]> {
  const dryRun = opts.dryRun ?? false;
  return runInDaemonOrHere(
    opts,
    {
      call: async (c, ws) => (await c.call("consolidate.run", { dryRun, ...ws })).reports,
      timeoutMs: 600_000,
    },
    (ws, engine) =>
      consolidate(ws, {
        dryRun,
        cacheMax: engine.config.cache.maxEntries,
        autoPromote: engine.config.schedule.autoPromote,
      }),
  );
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
