import { existsSync } from "node:fs";
import type { Command } from "commander";
import { syncStatusLines } from "./sync-status-lines.js";
import { probeDaemon, withClient } from "../../client/client.js";
import type { IndexStore } from "../../index/repos/store.js";
import type { CortexStatus, HookFailuresStatus } from "../../rpc/protocol.js";
import { readHookFailures } from "../../hooks/failures.js";
import { stalePathWarnings } from "../../install/stale-paths.js";
import { MODEL_LOADING_REASON } from "../../embed/loading.js";
import { ConfigError } from "../../config/config-error.js";
import { VERSION } from "../../version.js";
import { formatByReason } from "../../workspace/issues.js";
import { defaultNamespace } from "../../workspace/namespace.js";
import { missingRootProblem } from "../../workspace/resolve.js";
import type { GlobalOptions } from "../context.js";
import { daemonSocket } from "../daemon-target.js";
import { printJson } from "../print-json.js";
import { errorMessage } from "../../util/error-message.js";

/** Exit codes of `cortexd status` (LSB-like): scripts can branch on them. */
export const STATUS_EXIT = { healthy: 0, degraded: 1, notRunning: 3, unknown: 4 } as const;

function ago(iso: string | null, now = Date.now()): string {
  if (!iso) return "never";
  const s = Math.round((now - Date.parse(iso)) / 1000);
  if (s < 0) return `in ${fmtDuration(-s * 1000)}`;
  return `${fmtDuration(s * 1000)} ago`;
}

/** When a scheduled job runs next: "in 4m 10s", "due now" (its time has come or just passed), "not scheduled". */
export function nextRun(iso: string | null, now = Date.now()): string {
  if (!iso) return "not scheduled";
  const ms = Date.parse(iso) - now;
  return ms < 1000 ? "due now" : `in ${fmtDuration(ms)}`;
}

/** What the knowledge tiers mean (daemon/status.ts decides them from the index's size and age). */
const KNOWLEDGE_MEANING: Record<string, string> = {
  cold: "tier 1: under 3 files or 10 chunks, little to recall yet",
  warming: "tier 2: some memory, under 30 days of logs and 2,000 chunks",
  mature: "tier 3: 30+ days of logs or 2,000+ chunks",
};

export function fmtDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
}

function describeRunning(st: CortexStatus): string {
  const lines: string[] = [];
  lines.push(
    `cortexd ${st.version}: running (pid ${st.pid}, up ${fmtDuration(st.uptimeMs)}, ${Math.round(st.rssBytes / 1e6)} MB RSS)`,
  );
  lines.push(`socket:    ${st.socketPath}`);
  lines.push(`health:    ${st.healthy ? "ok" : "DEGRADED (see below)"}`);
  if (st.restartNeeded?.length)
    lines.push(
      `RESTART NEEDED: the config's ${st.restartNeeded.join(", ")} changed since start; \`cortexd restart\` applies it`,
    );
  const e = st.embedding;
  const loading = e.state === "keyword-only" && e.reason === MODEL_LOADING_REASON;
  lines.push(
    e.state === "ready"
      ? `embedding: ${e.model} (${e.dims} dims, provider ${e.provider})`
      : loading
        ? "embedding: loading the model (normal at start; keyword search until it is ready)"
        : `embedding: ${e.state === "error" ? "ERROR" : "keyword-only"}: ${e.reason ?? "no provider"}`,
  );
  if (e.warning) lines.push(`           WARNING: ${e.warning}`);
  const ep = e.endpoint;
  if (ep) {
    const state =
      ep.state === "ok"
        ? "ok"
        : ep.state === "gated"
          ? `DOWN (${ep.consecutiveFailures} failures in a row; next call ${ago(ep.gatedUntil)})`
          : `FAILING (${ep.consecutiveFailures} failure${ep.consecutiveFailures === 1 ? "" : "s"} in a row)`;
    lines.push(
      `endpoint:  ${state}, last success ${ago(ep.lastSuccessAt)}${ep.lastError ? `, last error ${ago(ep.lastErrorAt)}: ${ep.lastError}` : ""} (${ep.calls} calls, ${ep.retries} retries)`,
    );
  }
  const chunks = `${e.pendingVectors} chunk${e.pendingVectors === 1 ? "" : "s"}`;
  const vectors = {
    complete: "complete",
    backfilling: `${chunks} waiting, being embedded`,
    deferred: loading
      ? `${chunks} waiting for the model to load, then embedded`
      : `${chunks} keyword-only until the embedding provider works again`,
    off: "off (keyword search only)",
  };
  lines.push(`vectors:   ${vectors[e.vectors] ?? e.vectors}`);
  lines.push(
    `watcher:   ${st.watcher.mode}${st.watcher.reason ? ` (${st.watcher.reason})` : ""}, ${st.watcher.events} events, last ${ago(st.watcher.lastEventAt)}`,
  );
  lines.push(
    `knowledge: ${st.knowledgeState.maturity} (${KNOWLEDGE_MEANING[st.knowledgeState.maturity] ?? `tier ${st.knowledgeState.tier}`}), ${st.knowledgeState.totalSessions} sessions`,
  );
  lines.push("workspaces:");
  for (const w of st.workspaces) {
    lines.push(`  ${w.name}  ${w.root}`);
    lines.push(
      `    ${w.files} files, ${w.chunks} chunks, ${w.vectors} vectors, ${w.pending} pending, ${w.dirty} dirty; last sync ${ago(w.lastSync)}${w.lastError && !w.missing ? `; LAST ERROR: ${w.lastError}` : ""}`,
    );
    if (w.topEntities?.length)
      lines.push(
        `    top entities: ${w.topEntities.map((e) => `${e.name}${e.aliases?.length ? ` (aka ${e.aliases.join(", ")})` : ""} (${e.chunks})`).join(", ")}`,
      );
    else if (w.topEntitiesCounting) lines.push("    top entities: being counted (ask again in a moment)");
    if (w.claudeCode) lines.push(`    Claude Code: ${w.claudeCode} (read only)`);
    if (w.missing) lines.push(`    MISSING: ${w.lastError}`);
    if (w.recovered)
      lines.push(
        `    INDEX REBUILT: it was damaged at start (${w.recovered.reason}); moved to ${w.recovered.movedTo} ${ago(w.recovered.at)}`,
      );
    const files = (n: number) => `${n} file${n === 1 ? "" : "s"}`;
    if (w.skipped?.total)
      lines.push(
        `    not indexed: ${files(w.skipped.total)} (${formatByReason(w.skipped.byReason)}), e.g. ${w.skipped.examples[0]!.path}`,
      );
    if (w.repaired?.total)
      lines.push(
        `    indexed with a loss: ${files(w.repaired.total)} (${formatByReason(w.repaired.byReason)}), e.g. ${w.repaired.examples[0]!.path}`,
      );
    lines.push(...syncStatusLines(w, ago));
  }
  lines.push("schedule:");
  for (const j of st.schedule) {
    lines.push(
      `  ${j.name.padEnd(14)} ${j.cron.padEnd(14)} last ${ago(j.lastRun)}${j.lastResult ? ` (${j.lastResult})` : ""}, next ${nextRun(j.nextRun)}`,
    );
  }
  const hb = st.heartbeats?.at(-1);
  if (hb)
    lines.push(
      `heartbeat: ${hb.ok ? "ok" : "PROBLEMS"} ${ago(hb.at)}: drift ${hb.drift}, embedding ${hb.embedding}, watcher ${hb.watcher}${hb.problems.length ? `; ${hb.problems.join("; ")}` : ""}`,
    );
  for (const c of st.consolidation ?? []) {
    lines.push(
      `consolidation (${ago(c.at)}): ${c.error ? `error: ${c.error}` : `${c.duplicateGroups} duplicate groups, ${c.reinforced} reinforced, ${c.superseded} superseded, ${c.promotionCandidates} promotion candidates${c.promoted ? `, ${c.promoted} promoted` : ""}, check ${c.maintenance?.quickCheck ?? "-"}, ${c.ms} ms`}`,
    );
  }
  const r = st.recallMetrics;
  lines.push(
    r.count
      ? `searches:  ${r.count} since start (p50 ${r.p50} ms, p95 ${r.p95} ms, p99 ${r.p99} ms over the last 100)`
      : "searches:  none since start",
  );
  if (st.hooks) lines.push(...describeHookFailures(st.hooks));
  if (st.errors.length) {
    lines.push("recent errors:");
    for (const err of st.errors.slice(-5)) lines.push(`  ${err.at} ${err.message}`);
  }
  return lines.join("\n");
}

/** Hook failures, in one line when there are none. */
export function describeHookFailures(h: HookFailuresStatus, now = Date.now()): string[] {
  if (h.failures === 0) return ["hooks:     no failures"];
  const kinds = [
    h.timeouts ? `${h.timeouts} timed out` : "",
    h.errors ? `${h.errors} failed` : "",
    h.unavailable ? `${h.unavailable} found no live daemon` : "",
  ]
    .filter(Boolean)
    .join(", ");
  const lines = [
    `hooks:     ${h.failures} FAILED (${kinds}), ${h.last24h} in the last 24 h, last ${ago(h.lastAt, now)}; log ${h.log}`,
  ];
  for (const f of h.recent.slice(-3))
    lines.push(`  ${f.at} ${f.event}: ${f.message} (${Math.round(f.ms)} ms, budget ${f.budgetMs} ms)`);
  return lines;
}

interface OfflineWorkspace {
  name: string;
  root: string;
  indexed: boolean;
  files?: number;
  chunks?: number;
  vectors?: number;
  model?: string | null;
  /** The root does not exist: the problem and its fix. */
  missing?: string;
  /** The index could not be read (e.g. damaged: the daemon moves it aside and rebuilds it at start). */
  error?: string;
}

/** What can be said without the daemon: the config and the indexes on disk. */
async function offlineWorkspaces(
  opts: GlobalOptions,
): Promise<{ workspaces: OfflineWorkspace[]; configFile: string | null }> {
  // Only without a daemon: the config schema and SQLite are loaded here, not at start-up.
  const [{ loadForCli }, { indexPath }, { openDatabase }, { IndexStore }] = await Promise.all([
    import("../context.js"),
    import("../../engine/engine.js"),
    import("../../index/db/db.js"),
    import("../../index/repos/store.js"),
  ]);
  const loaded = loadForCli(opts);
  const workspaces = loaded.config.workspaces.map((w) => {
    const name = w.name ?? defaultNamespace(w.path);
    const db = indexPath(loaded.dataDir, name);
    const missing = missingRootProblem(w.path);
    if (missing) return { name, root: w.path, indexed: existsSync(db), missing };
    if (!existsSync(db)) return { name, root: w.path, indexed: false };
    let store: IndexStore | undefined;
    try {
      store = new IndexStore(openDatabase(db, { readonly: true }), name);
      const c = store.counts();
      return {
        name,
        root: w.path,
        indexed: true,
        files: c.files,
        chunks: c.chunks,
        vectors: c.vectors,
        model: store.getVectorIdentity()?.model ?? null,
      };
    } catch (e) {
      return { name, root: w.path, indexed: true, error: `index unreadable: ${errorMessage(e)}` };
    } finally {
      store?.close();
    }
  });
  return { workspaces, configFile: loaded.file };
}

export function registerStatus(program: Command): void {
  program
    .command("status")
    .description("is the daemon running and healthy? (exit 0 healthy, 1 degraded, 3 not running, 4 unknown)")
    .action(async (_o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions>();
      const socket =
        daemonSocket(opts) ??
        (await import("../../daemon/socket.js")).socketPathFor((await import("../context.js")).loadForCli(opts));
      const probe = await probeDaemon(socket, 2000);
      if (probe.up) {
        const st = await withClient(socket, (c) => c.call("cortex.status", {}), { timeoutMs: 5000 });
        const stale = stalePathWarnings();
        if (opts.json) printJson({ running: true, ...st, ...(stale.length ? { installWarnings: stale } : {}) });
        else console.log([describeRunning(st), ...stale.map((w) => `WARNING: ${w}`)].join("\n"));
        process.exitCode = st.healthy ? STATUS_EXIT.healthy : STATUS_EXIT.degraded;
        return;
      }
      // A broken config does not hide that the daemon is down: say both, and what to fix.
      const offline: { workspaces: OfflineWorkspace[]; configFile: string | null; configError?: string } =
        await offlineWorkspaces(opts).catch((e: unknown) => {
          if (!(e instanceof ConfigError)) throw e;
          return { workspaces: [], configFile: e.file ?? null, configError: e.message };
        });
      const code =
        probe.reason === "permission" || probe.reason === "error" ? STATUS_EXIT.unknown : STATUS_EXIT.notRunning;
      if (opts.json) {
        printJson({
          running: false,
          version: VERSION,
          reason: probe.reason,
          detail: probe.detail,
          socketPath: socket,
          ...offline,
          hooks: readHookFailures(socket),
          installWarnings: stalePathWarnings(),
        });
      } else {
        const hint =
          probe.reason === "stale-socket"
            ? " (it exited without cleaning up; `cortexd start` replaces the stale socket)"
            : probe.reason === "permission"
              ? " (the socket belongs to another user or has the wrong mode)"
              : "";
        console.log(
          `cortexd ${VERSION}: ${probe.detail.startsWith("cortexd is not running") ? probe.detail.slice("cortexd is ".length) : `not running: ${probe.detail}`}${hint}`,
        );
        console.log(`start it with \`cortexd start\`, or at login with \`cortexd service install\``);
        console.log(`config:    ${offline.configFile ?? "none (defaults)"}`);
        if (offline.configError)
          console.log(`           INVALID: ${offline.configError} (fix it, then \`cortexd config validate\`)`);
        console.log("workspaces (from the indexes on disk):");
        for (const w of offline.workspaces) {
          console.log(`  ${w.name}  ${w.root}`);
          if (w.missing) console.log(`    MISSING: ${w.missing}`);
          else
            console.log(
              w.error
                ? `    ${w.error} (the daemon moves a damaged index aside and rebuilds it when it starts)`
                : w.indexed
                  ? `    ${w.files} files, ${w.chunks} chunks, ${w.vectors} vectors${w.model ? ` (${w.model})` : ""}`
                  : "    not indexed yet",
            );
        }
        for (const line of describeHookFailures(readHookFailures(socket))) console.log(line);
        for (const w of stalePathWarnings()) console.log(`WARNING: ${w}`);
      }
      process.exitCode = code;
    });
}
