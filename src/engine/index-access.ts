import { dirname } from "node:path";
import type { Logger } from "pino";
import {
  corruptionReason,
  isCorruptionError,
  moveAsideDamaged,
  openIndexChecked,
  type IndexRecovery,
} from "../index/db/open-checked.js";
import { ReadOnlyIndexError, readOnlyMessage, type ReadOnlyIndex } from "../index/db/open-read-only.js";
import { isReadOnlyCode, probeWritable } from "../index/db/probe-writable.js";
import { IndexStore } from "../index/repos/store.js";
import { writeFault } from "../index/db/write-errors.js";
import type { WorkspaceEngine } from "./engine.js";
import { errorMessage } from "../util/error-message.js";

/** How long a replaced connection stays open for a search that was already running on it. */
const RETIRE_MS = 30_000;

/**
 * Whether a workspace's index can be written, and getting back to writing once it can: a
 * workspace whose data dir refused a write is marked read-only (searches keep using the index as
 * it is); the next write attempt asks the directory again and, once it takes writes, reopens the
 * index read-write (a fresh connection: the old one may be tied to a filesystem that was
 * unmounted and mounted again) and swaps it in everywhere.
 */
export interface IndexAccess {
  /** Throws ReadOnlyIndexError while the workspace's data dir is read-only; reopens the index read-write once it is not. */
  ensureWritable(ws: WorkspaceEngine): void;
  /** After a failed write: when the data dir now refuses writes, marks the workspace read-only and returns why. */
  noteWriteFailure(ws: WorkspaceEngine, e: unknown): ReadOnlyIndex | null;
  /**
   * SQLite said the index is damaged (SQLITE_CORRUPT/NOTADB) while running: moves it aside and swaps
   * in a fresh one, as at start, and returns the recovery (null when `e` is no corruption). The next
   * full sync rebuilds it from the memory files.
   */
  recoverCorruption(ws: WorkspaceEngine, e: unknown): IndexRecovery | null;
  /** Closes connections replaced by a reopen (at shutdown). */
  close(): void;
}

export function createIndexAccess(opts: { logger: Logger; clock: () => number; quickCheck: boolean }): IndexAccess {
  const retired = new Set<IndexStore>();
  const retire = (store: IndexStore) => {
    retired.add(store);
    setTimeout(() => {
      retired.delete(store);
      store.close();
    }, RETIRE_MS).unref();
  };

  function swapIn(ws: WorkspaceEngine, store: IndexStore): void {
    const old = ws.store;
    if (old.keywordsInMemory) store.keepKeywordsInMemory();
    ws.store = store;
    ws.indexer.setStore(store);
    ws.searcher.setStore(store);
    retire(old);
  }

  function reopen(ws: WorkspaceEngine, was: ReadOnlyIndex): void {
    const { opened, recovery, readOnly } = openIndexChecked(ws.dbPath, {
      quickCheck: opts.quickCheck,
      logger: opts.logger,
      clock: opts.clock,
    });
    if (readOnly) {
      opened.db.close();
      ws.readOnly = { ...readOnly, at: was.at };
      throw new ReadOnlyIndexError(ws.readOnly);
    }
    swapIn(ws, new IndexStore(opened, ws.name, opts.clock));
    if (recovery) ws.recovery = recovery;
    delete ws.readOnly;
    opts.logger.warn(
      { workspace: ws.name, index: ws.dbPath, readOnlySince: was.at },
      "data dir is writable again: index reopened read-write, indexing what changed",
    );
  }

  return {
    ensureWritable(ws) {
      const ro = ws.readOnly;
      if (!ro) return;
      const probe = probeWritable(dirname(ws.dbPath));
      if (!probe.writable && isReadOnlyCode(probe.code)) throw new ReadOnlyIndexError(ro);
      reopen(ws, ro);
    },
    noteWriteFailure(ws, e) {
      if (e instanceof ReadOnlyIndexError) return e.readOnly;
      const code = String((e as { code?: unknown }).code ?? "");
      // A read-only filesystem reaches SQLite as SQLITE_READONLY, or as an I/O error on an open file.
      if (writeFault(e) === null && !code.startsWith("SQLITE_IOERR") && code !== "SQLITE_CANTOPEN") return null;
      const probe = probeWritable(dirname(ws.dbPath));
      if (probe.writable || !isReadOnlyCode(probe.code)) return null;
      ws.readOnly ??= { at: new Date(opts.clock()).toISOString(), dir: probe.dir, reason: probe.message };
      opts.logger.warn({ workspace: ws.name, dir: probe.dir, err: errorMessage(e) }, readOnlyMessage(ws.readOnly));
      return ws.readOnly;
    },
    recoverCorruption(ws, e) {
      if (!isCorruptionError(e) || ws.readOnly) return null;
      const reason = `${corruptionReason(e)} (seen while running)`;
      ws.store.close(); // let go of the damaged file before moving it
      const recovery = moveAsideDamaged(ws.dbPath, reason, opts.clock, opts.logger);
      const { opened } = openIndexChecked(ws.dbPath, { quickCheck: false, logger: opts.logger, clock: opts.clock });
      swapIn(ws, new IndexStore(opened, ws.name, opts.clock));
      ws.recovery = recovery;
      return recovery;
    },
    close() {
      for (const s of retired) s.close();
      retired.clear();
    },
  };
}
