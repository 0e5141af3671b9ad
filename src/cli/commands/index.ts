import type { Command } from "commander";
import { formatByReason, summarizeIssues } from "../../workspace/issues.js";
import type { SyncReport } from "../../indexer/sync.js";
import { readOnlyMessage } from "../../index/db/open-read-only.js";
import { CliError, openCliEngine, printJson, selectWorkspace, type GlobalOptions } from "../context.js";
import { modelBuildProgress, syncProgressBar } from "../progress.js";

interface IndexOptions extends GlobalOptions {
  force?: boolean;
  all?: boolean;
}

function describe(r: SyncReport, root: string): string {
  const lines = [
    `indexed ${root} (namespace ${r.namespace}) in ${r.ms} ms`,
    `  files:  ${r.added} added, ${r.changed} changed, ${r.removed} removed, ${r.renamed} renamed, ${r.unchanged} unchanged`,
    `  chunks: ${r.chunksWritten} written, ${r.chunksRemoved} removed`,
    `  embeddings: ${r.embedded} computed, ${r.cacheHits} from cache${r.noVector ? `, ${r.noVector} chunks with nothing embeddable` : ""}`,
  ];
  if (r.modelChanged)
    lines.push(`  model changed (${r.modelChanged.from} → ${r.modelChanged.to}): vectors re-embedded`);
  if (r.vectorsUnavailable) lines.push(`  vectors unavailable: ${r.vectorsUnavailable}`);
  if (r.malformedLines) lines.push(`  transcripts: ${r.malformedLines} malformed lines skipped`);
  if (r.skipped.length)
    lines.push(`  not indexed: ${r.skipped.length} (${formatByReason(summarizeIssues(r.skipped).byReason)})`);
  for (const s of r.skipped.slice(0, 10)) lines.push(`    ${s.path}: ${s.reason}`);
  if (r.skipped.length > 10) lines.push(`    … and ${r.skipped.length - 10} more`);
  for (const x of (r.repaired ?? []).slice(0, 10)) lines.push(`  indexed with a loss ${x.path}: ${x.reason}`);
  return lines.join("\n");
}

export function registerIndex(program: Command): void {
  program
    .command("index")
    .description("index the workspace's memory files now (incremental; --force re-chunks everything)")
    .option("--force", "re-read and re-chunk every file (vectors still come from the cache)")
    .option("--all", "index every configured workspace")
    .action(async (_o: IndexOptions, cmd: Command) => {
      const opts = cmd.optsWithGlobals<IndexOptions>();
      // The model is loaded only when something needs embedding (see syncLoadingModelOnDemand).
      const engine = await openCliEngine(opts, { deferProvider: true, verifyIndexes: true });
      try {
        const targets = opts.all ? engine.workspaces : [selectWorkspace(engine, opts)];
        const recovered = engine.workspaces.flatMap((w) => (w.recovery ? [{ workspace: w.name, ...w.recovery }] : []));
        if (!opts.json)
          for (const r of recovered)
            console.error(
              `index of ${r.workspace} was damaged (${r.reason}): moved to ${r.movedTo}; rebuilding it from the files`,
            );
        for (const ws of targets)
          if (ws.readOnly) throw new CliError(`cannot index ${ws.root}: ${readOnlyMessage(ws.readOnly)}`);
        const { syncLoadingModelOnDemand } = await import("../../engine/sync-on-demand.js");
        const { reports, status } = await syncLoadingModelOnDemand(engine, targets, {
          sync: { force: !!opts.force },
          progress: () => syncProgressBar(!opts.json),
          onModelBuildProgress: modelBuildProgress(!opts.json),
        });
        if (opts.json) {
          printJson({ reports, embedding: status, ...(recovered.length ? { recovered } : {}) });
          return;
        }
        reports.forEach((r, i) => console.log(describe(r, targets[i]!.root)));
        if (status.state === "ready")
          console.log(`  model: ${status.model}${status.source === "builtin" ? " (built-in)" : ""}`);
        else console.log(`  keyword-only: ${status.reason}`);
        if (status.state === "error") process.exitCode = 2;
      } finally {
        await engine.close();
      }
    });
}
