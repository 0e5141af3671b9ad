import { existsSync, renameSync } from "node:fs";
import type { Logger } from "pino";
import { openDatabase, type OpenedDb } from "./db.js";

/** A damaged index that was moved aside and replaced by an empty one (rebuilt by the next sync). */
export interface IndexRecovery {
  /** When it was detected (ISO). */
  at: string;
  /** What was wrong: SQLite's error or the first line of `PRAGMA quick_check`. */
  reason: string;
  /** Where the damaged file now is (its -wal/-shm beside it with the same suffixes). */
  movedTo: string;
}

export interface OpenCheckedOptions {
  /** Run `PRAGMA quick_check` after opening (O(size): the daemon and `cortexd index` do; quick commands don't). */
  quickCheck?: boolean;
  logger?: Logger;
  clock?: () => number;
  loadVec?: boolean;
}

export interface OpenedChecked {
  opened: OpenedDb;
  recovery?: IndexRecovery;
}

/** SQLite's own verdicts on a file that is not a sound database. Busy, permission and I/O errors are not. */
export function isCorruptionError(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return typeof code === "string" && (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB");
}

/** `ok`, or what `PRAGMA quick_check` found first. */
function quickCheck(db: OpenedDb["db"]): string {
  const rows = db.pragma("quick_check(5)") as { quick_check: string }[];
  const lines = rows.map((r) => r.quick_check);
  return lines.length === 1 && lines[0] === "ok" ? "ok" : lines.join("; ") || "quick_check returned nothing";
}

function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[:.]/g, "-");
}

/**
 * Opens an index, and when SQLite says the file is damaged (not a database, a malformed image, or
 * `quick_check` finds problems) moves it aside to `<db>.corrupt-<time>` (with its -wal and -shm)
 * and opens a fresh one in its place. The index holds nothing that is not in the memory files, so
 * the next sync rebuilds it; the damaged copy is kept for inspection, never deleted.
 */
export function openIndexChecked(path: string, opts: OpenCheckedOptions = {}): OpenedChecked {
  const clock = opts.clock ?? Date.now;
  const openOpts = opts.loadVec === false ? { loadVec: false } : {};
  if (path === ":memory:" || !existsSync(path)) return { opened: openDatabase(path, openOpts) };
  let reason: string;
  let opened: OpenedDb | undefined;
  try {
    opened = openDatabase(path, openOpts);
    const check = opts.quickCheck ? quickCheck(opened.db) : "ok";
    if (check === "ok") return { opened };
    reason = `quick_check: ${check}`;
  } catch (e) {
    if (!isCorruptionError(e)) {
      if (opened?.db.open) opened.db.close();
      throw e;
    }
    reason = `${(e as { code: string }).code}: ${(e as Error).message}`;
  }
  if (opened?.db.open) opened.db.close();
  const at = clock();
  const movedTo = `${path}.corrupt-${stamp(at)}`;
  renameSync(path, movedTo);
  for (const suffix of ["-wal", "-shm"]) {
    if (existsSync(path + suffix)) renameSync(path + suffix, movedTo + suffix);
  }
  const recovery: IndexRecovery = { at: new Date(at).toISOString(), reason, movedTo };
  opts.logger?.warn({ index: path, reason, movedTo }, "index is damaged: moved aside, rebuilding it from the memory files");
  return { opened: openDatabase(path, openOpts), recovery };
}
