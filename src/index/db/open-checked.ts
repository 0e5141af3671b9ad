import { existsSync, renameSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { Logger } from "pino";
import { openDatabase, type OpenedDb } from "./db.js";
import { openIndexReadOnly, readOnlyMessage, type ReadOnlyIndex } from "./open-read-only.js";
import { isReadOnlyCode, probeWritable } from "./probe-writable.js";
import { errorMessage } from "../../util/error-message.js";

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
  /**
   * Only an index of at most this many bytes (with its WAL) is checked at open; a larger one is
   * opened unchecked and `checkLater` is set, for the caller to check it off its startup path
   * (index-check-child.ts). Default: any size is checked at open.
   */
  quickCheckMaxBytes?: number;
  logger?: Logger;
  clock?: () => number;
  loadVec?: boolean;
}

export interface OpenedChecked {
  opened: OpenedDb;
  recovery?: IndexRecovery;
  /** Set when the index's directory cannot be written: it was opened read-only (see open-read-only.ts). */
  readOnly?: ReadOnlyIndex;
  /** Asked for a quick_check, but the index was larger than `quickCheckMaxBytes`: opened unchecked. */
  checkLater?: true;
}

/** Bytes of an index and its WAL (0 when there is none). */
function indexBytes(path: string): number {
  let n = 0;
  for (const p of [path, `${path}-wal`]) n += statSync(p, { throwIfNoEntry: false })?.size ?? 0;
  return n;
}

/** What a quick_check that did not say `ok` becomes: an error recovery treats as damage (SQLITE_CORRUPT). */
export function quickCheckFailure(verdict: string): Error {
  return Object.assign(new Error(`quick_check: ${verdict}`), { code: "SQLITE_CORRUPT" });
}

/** SQLite's own verdicts on a file that is not a sound database. Busy, permission and I/O errors are not. */
export function isCorruptionError(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return typeof code === "string" && (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB");
}

/** How a corruption error is told in a recovery's reason and the logs: SQLite's code and message. */
export function corruptionReason(e: unknown): string {
  return `${String((e as { code?: unknown }).code)}: ${errorMessage(e)}`;
}

class QuickCheckFailed extends Error {}

/** `ok`, or what `PRAGMA quick_check` found first. */
export function quickCheckVerdict(db: OpenedDb["db"]): string {
  const rows = db.pragma("quick_check(5)") as { quick_check: string }[];
  const lines = rows.map((r) => r.quick_check);
  return lines.length === 1 && lines[0] === "ok" ? "ok" : lines.join("; ") || "quick_check returned nothing";
}

function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[:.]/g, "-");
}

/**
 * Opens an index read-write (see openChecked). When that fails and the directory refuses a write
 * (a read-only mount, a disk the kernel turned read-only, lost permissions), opens it read-only
 * instead, so searches keep answering; the caller reopens it read-write once it can write again.
 */
export function openIndexChecked(path: string, options: OpenCheckedOptions = {}): OpenedChecked {
  const later =
    !!options.quickCheck &&
    options.quickCheckMaxBytes !== undefined &&
    path !== ":memory:" &&
    indexBytes(path) > options.quickCheckMaxBytes;
  const opts = later ? { ...options, quickCheck: false } : options;
  try {
    const checked = openChecked(path, opts);
    return later ? { ...checked, checkLater: true } : checked;
  } catch (e) {
    if (path === ":memory:") throw e;
    const probe = probeWritable(dirname(path));
    if (probe.writable || !isReadOnlyCode(probe.code)) throw e;
    const { opened, readOnly } = openIndexReadOnly(path, probe, {
      at: new Date((opts.clock ?? Date.now)()).toISOString(),
      ...(opts.quickCheck ? { quickCheck: true } : {}),
      ...(opts.loadVec === false ? { loadVec: false } : {}),
    });
    opts.logger?.warn(
      {
        index: path,
        dir: readOnly.dir,
        reason: readOnly.reason,
        ...(readOnly.unreadable ? { unreadable: readOnly.unreadable } : {}),
      },
      readOnlyMessage(readOnly),
    );
    return { opened, readOnly };
  }
}

/**
 * Opens an index, and when SQLite says the file is damaged (not a database, a malformed image, or
 * `quick_check` finds problems) moves it aside to `<db>.corrupt-<time>` (with its -wal and -shm)
 * and opens a fresh one in its place. The index holds nothing that is not in the memory files, so
 * the next sync rebuilds it; the damaged copy is kept for inspection, never deleted.
 */
function openChecked(path: string, opts: OpenCheckedOptions): OpenedChecked {
  const clock = opts.clock ?? Date.now;
  const openOpts = opts.loadVec === false ? { loadVec: false } : {};
  if (path === ":memory:" || !existsSync(path)) return { opened: openDatabase(path, openOpts) };
  let reason: string;
  let opened: OpenedDb | undefined;
  const verify = (db: OpenedDb["db"]) => {
    const check = quickCheckVerdict(db);
    if (check !== "ok") throw new QuickCheckFailed(check);
  };
  try {
    // quick_check before anything is written, so a damaged file is moved aside exactly as it was found.
    opened = openDatabase(path, { ...openOpts, ...(opts.quickCheck ? { verify } : {}) });
    return { opened };
  } catch (e) {
    if (e instanceof QuickCheckFailed) reason = `quick_check: ${e.message}`;
    else if (!isCorruptionError(e)) {
      if (opened?.db.open) opened.db.close();
      throw e;
    } else reason = corruptionReason(e);
  }
  if (opened?.db.open) opened.db.close();
  const recovery = moveAsideDamaged(path, reason, clock, opts.logger);
  return { opened: openDatabase(path, openOpts), recovery };
}

/** Moves a damaged index (with its -wal and -shm) to `<db>.corrupt-<time>`; the caller opens a fresh one. */
export function moveAsideDamaged(
  path: string,
  reason: string,
  clock: () => number = Date.now,
  logger?: Logger,
): IndexRecovery {
  const at = clock();
  const movedTo = `${path}.corrupt-${stamp(at)}`;
  renameSync(path, movedTo);
  for (const suffix of ["-wal", "-shm"]) {
    if (existsSync(path + suffix)) renameSync(path + suffix, movedTo + suffix);
  }
  logger?.warn({ index: path, reason, movedTo }, "index is damaged: moved aside, rebuilding it from the memory files");
  return { at: new Date(at).toISOString(), reason, movedTo };
}
