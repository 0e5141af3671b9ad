import type { Command } from "commander";
import {
  applyPromotions,
  indexPromoted,
  promotionCandidates,
  type PromotionCandidate,
} from "../../consolidate/promotion.js";
import { CliError, printJson, type GlobalOptions } from "../context.js";
import { runInDaemonOrHere } from "../daemon-or-local.js";

interface PromoteOptions extends GlobalOptions {
  list?: boolean;
  apply?: boolean;
}

type Outcome = {
  workspace: string;
  candidates: PromotionCandidate[];
  applied?: number;
  backup?: string;
  heading?: string;
};

export function registerPromote(program: Command): void {
  program
    .command("promote")
    .description(
      "memories recalled often (≥ 3 recalls from ≥ 3 queries, last 30 days): list them, or append them to MEMORY.md (after a backup)",
    )
    .option("--list", "list the candidates (default)")
    .option(
      "--apply",
      "append the candidates to MEMORY.md under a dated heading; MEMORY.md is copied to MEMORY.md.bak-<time> first",
    )
    .action(async (_o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<PromoteOptions>();
      if (opts.list && opts.apply) throw new CliError("give --list or --apply, not both");
      const apply = !!opts.apply;
      const out: Outcome[] = await runInDaemonOrHere<Outcome>(
        opts,
        { call: (c, ws) => (apply ? c.call("promote.apply", ws) : c.call("promote.list", ws)), timeoutMs: 60_000 },
        async (ws) => {
          if (!apply) return { workspace: ws.name, candidates: await promotionCandidates(ws.store, ws.root) };
          const r = await applyPromotions(ws.store, ws.root);
          if (r.applied) await indexPromoted((o) => ws.indexer.sync(o));
          return { workspace: ws.name, ...r };
        },
      );
      if (opts.json) return printJson(out);
      for (const o of out) {
        if (o.candidates.length === 0) {
          console.log(`${o.workspace}: no promotion candidates`);
          continue;
        }
        console.log(
          apply
            ? `${o.workspace}: appended ${o.applied} entries to MEMORY.md under "${o.heading}"`
            : `${o.workspace}: ${o.candidates.length} candidates`,
        );
        for (const c of o.candidates)
          console.log(
            `  ${c.path}:${c.startLine}-${c.endLine} (${c.recalls} recalls, ${c.queries} queries)  ${c.text.split("\n")[0]}`,
          );
        if (o.backup) console.log(`  backup: ${o.backup} (undo: copy it back over MEMORY.md)`);
      }
    });
}
