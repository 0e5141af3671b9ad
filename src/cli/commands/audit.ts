import type { Command } from "commander";
import { auditDir } from "../../audit/audit-log.js";
import { formatAuditEntry, parseSince, readAudit } from "../../audit/audit-read.js";
import { CliError } from "../cli-error.js";
import { loadForCli, type GlobalOptions } from "../context.js";
import { printJson } from "../print-json.js";

interface AuditOptions extends GlobalOptions {
  session?: string;
  since?: string;
  limit?: string;
}

/**
 * `cortexd audit`: what recall and search gave to hosts (docs/security.md), read from the audit log
 * in the data dir; works with the daemon down.
 */
export function registerAudit(program: Command): void {
  program
    .command("audit")
    .description("what recall, search and session starts gave to hosts: time, client, session, scope, query, memories")
    .option("--session <id>", "only this session's answers")
    .option("--since <when>", 'only answers since then: "30m", "2h", "7d" or an ISO date/time')
    .option("-n, --limit <n>", "the newest this-many (default 20)")
    .action((_o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<AuditOptions>();
      const limit = opts.limit === undefined ? 20 : Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1)
        throw new CliError(`--limit must be a positive integer, got "${opts.limit}"`);
      const since = opts.since === undefined ? undefined : parseSince(opts.since);
      if (opts.since !== undefined && since === undefined)
        throw new CliError(`--since must be "30m", "2h", "7d" or an ISO date/time, got "${opts.since}"`);
      const loaded = loadForCli(opts);
      const entries = readAudit(auditDir(loaded.dataDir), {
        ...(opts.session ? { session: opts.session } : {}),
        ...(since !== undefined ? { since } : {}),
        limit,
      });
      if (opts.json) {
        printJson(entries);
        return;
      }
      const enabled = loaded.config.audit.enabled;
      if (entries.length === 0)
        console.log(`no audit entries${enabled ? "" : " (the audit log is off: audit.enabled in the config)"}`);
      for (const e of entries) console.log(formatAuditEntry(e));
    });
}
