import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, renameSync, writeSync } from "node:fs";
import type { HookFailure, HookFailureKind, HookFailuresStatus } from "../rpc/protocol.js";

/**
 * Hook failures, never silent: a hook that timed out, got an error from the daemon, or found a
 * dead socket appends one JSON line to a small log beside the daemon's socket
 * (`<socket>.hook-failures.jsonl`), and the daemon reads it for `cortexd status`. The file sits with
 * the socket because that is the one path a hook and its daemon always agree on, and writing it
 * needs no daemon (a daemon that is hung or was killed is exactly when failures happen). A missing
 * socket (no daemon running) is not a failure and is not recorded. Node built-ins only: the hook
 * path loads this.
 *
 * The log is bounded: past MAX_LOG_BYTES it is renamed to `….1` (replacing the older one), so
 * the two files hold the most recent failures. Writes refuse symlinks and files of other users.
 */

export type { HookFailure, HookFailureKind };

export const MAX_LOG_BYTES = 64 * 1024;
const MAX_MESSAGE_CHARS = 300;

export function hookFailureLogPath(socketPath: string): string {
  return `${socketPath}.hook-failures.jsonl`;
}

const uid = () => (typeof process.getuid === "function" ? process.getuid() : undefined);

/** Appends one record; never throws (a hook must exit 0 whatever happens). */
export function recordHookFailure(socketPath: string, f: HookFailure): void {
  const path = hookFailureLogPath(socketPath);
  try {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (st && st.isFile() && st.size > MAX_LOG_BYTES && st.uid === uid()) renameSync(path, `${path}.1`);
    const fd = openSync(
      path,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      const own = fstatSync(fd);
      if (!own.isFile() || (uid() !== undefined && own.uid !== uid())) return;
      const line =
        JSON.stringify({ ...f, message: f.message.slice(0, MAX_MESSAGE_CHARS), ms: Math.round(f.ms) }) + "\n";
      writeSync(fd, line);
    } finally {
      closeSync(fd);
    }
  } catch {
    // no socket directory, read-only, not ours: nothing more a hook can do
  }
}

/** Reads the log (and its older half); a missing or foreign file counts as no failures. */
export function readHookFailures(socketPath: string, now = Date.now(), recentCount = 5): HookFailuresStatus {
  const log = hookFailureLogPath(socketPath);
  const records = [...readRecords(`${log}.1`), ...readRecords(log)];
  const out: HookFailuresStatus = {
    failures: records.length,
    timeouts: 0,
    errors: 0,
    unavailable: 0,
    last24h: 0,
    lastAt: null,
    recent: records.slice(-recentCount),
    log,
  };
  for (const r of records) {
    if (r.kind === "timeout") out.timeouts++;
    else if (r.kind === "error") out.errors++;
    else out.unavailable++;
    const t = Date.parse(r.at);
    if (now - t <= 86_400_000) out.last24h++;
  }
  out.lastAt = records.at(-1)?.at ?? null;
  return out;
}

function readRecords(path: string): HookFailure[] {
  let text: string;
  try {
    const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const st = fstatSync(fd);
      if (!st.isFile() || (uid() !== undefined && st.uid !== uid())) return [];
      const buf = Buffer.alloc(Math.min(st.size, 2 * MAX_LOG_BYTES));
      const n = readSync(fd, buf, 0, buf.length, Math.max(0, st.size - buf.length));
      text = buf.subarray(0, n).toString("utf8");
    } finally {
      closeSync(fd);
    }
  } catch {
    return [];
  }
  const out: HookFailure[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const v = JSON.parse(line) as Partial<HookFailure>;
      if (typeof v.at !== "string" || Number.isNaN(Date.parse(v.at))) continue;
      const kind: HookFailureKind = v.kind === "timeout" || v.kind === "error" ? v.kind : "unavailable";
      out.push({
        at: v.at,
        event: typeof v.event === "string" ? v.event.slice(0, 64) : "?",
        kind,
        message: typeof v.message === "string" ? v.message.slice(0, MAX_MESSAGE_CHARS) : "",
        ms: typeof v.ms === "number" && Number.isFinite(v.ms) ? v.ms : 0,
        budgetMs: typeof v.budgetMs === "number" && Number.isFinite(v.budgetMs) ? v.budgetMs : 0,
      });
    } catch {
      // a torn or foreign line
    }
  }
  return out;
}
