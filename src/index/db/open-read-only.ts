import { existsSync, readFileSync, statSync } from "node:fs";
import { openDatabase, type OpenedDb } from "./db.js";
import { SCHEMA_VERSION } from "./migrations.js";
import type { WritableProbe } from "./probe-writable.js";

/** An index opened read-only because its directory cannot be written. */
export interface ReadOnlyIndex {
  /** When it was found (ISO). */
  at: string;
  /** The directory that refused a write. */
  dir: string;
  /** What the filesystem said ("EROFS: read-only file system, …"). */
  reason: string;
  /** Set when the index could not be read either: searches find nothing until it is rebuilt. */
  unreadable?: string;
  /** Set when it is searched from a copy in memory (an index left in WAL mode without its -wal file). */
  copy?: true;
}

/** The largest index copied into memory when it cannot be opened in place. */
export const MAX_INDEX_COPY_BYTES = 256 * 1024 * 1024;

/** "read-only data dir: <dir> — <what to do>; <what still works> (<reason>)", for status and logs. */
export function readOnlyMessage(ro: ReadOnlyIndex): string {
  const reads = ro.unreadable
    ? `the index cannot be read either (${ro.unreadable}), so searches find nothing until then`
    : "until then searches answer from the index as it is";
  return (
    `read-only data dir: ${ro.dir} — make it writable again (remount it read-write or fix its permissions); ` +
    `${reads}, saves still go to the memory files, and what changed is indexed by itself once it is writable (${ro.reason})`
  );
}

/** The error a write gets while the index is read-only (JSON-RPC callers see its message). */
export class ReadOnlyIndexError extends Error {
  readonly code = "EROFS";
  constructor(readonly readOnly: ReadOnlyIndex) {
    super(readOnlyMessage(readOnly));
    this.name = "ReadOnlyIndexError";
  }
}

function checkReadable(opened: OpenedDb, quickCheck: boolean): void {
  const version = opened.db.pragma("user_version", { simple: true }) as number;
  if (version !== SCHEMA_VERSION) {
    throw new Error(
      `it has schema version ${version} and this cortexd uses ${SCHEMA_VERSION}; it is upgraded once the directory is writable`,
    );
  }
  if (quickCheck) {
    const rows = opened.db.pragma("quick_check(1)") as { quick_check: string }[];
    if (rows[0]?.quick_check !== "ok")
      throw new Error(
        `it is damaged (quick_check: ${rows[0]?.quick_check ?? "no answer"}); it is rebuilt once the directory is writable`,
      );
  }
}

/** An empty index that refuses writes, for when there is nothing readable. */
function emptyReadOnly(loadVec: boolean): OpenedDb {
  const scratch = openDatabase(":memory:", { loadVec: false });
  const image = scratch.db.serialize();
  scratch.db.close();
  return openDatabase("", { image, loadVec });
}

function openOrNull(open: () => OpenedDb, quickCheck: boolean): { opened: OpenedDb } | { error: Error } {
  let opened: OpenedDb | undefined;
  try {
    opened = open();
    checkReadable(opened, quickCheck);
    return { opened };
  } catch (e) {
    if (opened?.db.open) opened.db.close();
    return { error: e as Error };
  }
}

/**
 * Opens an index whose directory cannot be written: in place, read-only (an index closed cleanly is
 * in rollback mode, and one left by a crash has its -wal and -shm, both readable); else, for an
 * index left in WAL mode without its -wal file (cleanly closed by an older cortexd), a copy of it
 * in memory; else an empty index, with the reason. Nothing is written anywhere.
 */
export function openIndexReadOnly(
  path: string,
  probe: Extract<WritableProbe, { writable: false }>,
  opts: { quickCheck?: boolean; loadVec?: boolean; at: string },
): { opened: OpenedDb; readOnly: ReadOnlyIndex } {
  const loadVec = opts.loadVec !== false;
  const quick = opts.quickCheck ?? false;
  const base: ReadOnlyIndex = { at: opts.at, dir: probe.dir, reason: probe.message };
  if (!existsSync(path))
    return { opened: emptyReadOnly(loadVec), readOnly: { ...base, unreadable: `there is no index at ${path} yet` } };
  const inPlace = openOrNull(() => openDatabase(path, { readonly: true, loadVec }), quick);
  if ("opened" in inPlace) return { opened: inPlace.opened, readOnly: base };
  let error = inPlace.error;
  const size = statSync(path).size;
  if (
    (error as { code?: string }).code === "SQLITE_CANTOPEN" &&
    !existsSync(`${path}-wal`) &&
    size <= MAX_INDEX_COPY_BYTES
  ) {
    const image = readFileSync(path);
    // A WAL-mode header cannot be opened from memory; without a -wal file the main file is the whole database.
    if (image.length > 19 && image[18] === 2 && image[19] === 2) image[18] = image[19] = 1;
    const copy = openOrNull(() => openDatabase(path, { image, loadVec }), quick);
    if ("opened" in copy) return { opened: copy.opened, readOnly: { ...base, copy: true } };
    error = copy.error;
  } else if ((error as { code?: string }).code === "SQLITE_CANTOPEN") {
    error = new Error(
      `it is in WAL mode and its -wal/-shm files cannot be created here${size > MAX_INDEX_COPY_BYTES ? ` (and at ${Math.round(size / 2 ** 20)} MiB it is too large to copy into memory)` : ""}`,
    );
  }
  return { opened: emptyReadOnly(loadVec), readOnly: { ...base, unreadable: error.message } };
}
