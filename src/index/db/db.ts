import Database from "better-sqlite3";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import * as sqliteVec from "sqlite-vec";
import { migrate } from "./migrations.js";
import { errorMessage } from "../../util/error-message.js";

export interface OpenedDb {
  db: Database.Database;
  /** True when the sqlite-vec extension loaded. */
  vecAvailable: boolean;
  /** Why vectors are unavailable, when they are. */
  vecError?: string;
}

export interface OpenDatabaseOptions {
  /** Open without writing anything (no WAL switch, no migrations); the file must exist. */
  readonly?: boolean;
  loadVec?: boolean;
  /** Open this serialized database (a copy of the file's bytes) in memory instead of `path`, read-only. */
  image?: Buffer;
  /** Runs before anything is written (the WAL switch, migrations): a damaged file is then left as it was found. */
  verify?: (db: Database.Database) => void;
  /** Page cache in KiB (default 8,000: the daemon's connections); a one-pass reader needs little. */
  cacheKib?: number;
}

/** Opens (creating if needed) an index database: WAL, foreign keys, sqlite-vec, migrations. */
export function openDatabase(path: string, opts: OpenDatabaseOptions = {}): OpenedDb {
  if (opts.image) opts = { ...opts, readonly: true };
  if (path !== ":memory:" && !opts.readonly) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // Created owner-only; SQLite gives the -wal and -shm files the database file's mode.
    closeSync(openSync(path, "a", 0o600));
  }
  const db = opts.image
    ? new Database(opts.image, { readonly: true })
    : new Database(path, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
  db.pragma("busy_timeout = 5000");
  if (opts.verify) {
    try {
      opts.verify(db);
    } catch (e) {
      db.close();
      throw e;
    }
  }
  if (!opts.readonly) {
    // 16 KiB pages pack ~1.5 KB chunk rows with little waste; incremental auto-vacuum lets a merge
    // of FTS segments give its freed pages back (see fts-merge.ts). Both only settable before the first write.
    if (
      (db.pragma("user_version", { simple: true }) as number) === 0 &&
      (db.pragma("page_count", { simple: true }) as number) === 0
    ) {
      db.pragma("page_size = 16384");
      db.pragma("auto_vacuum = INCREMENTAL");
    }
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
  }
  db.pragma("foreign_keys = ON");
  db.pragma("temp_store = MEMORY");
  // 8 MB page cache per index: the hot FTS and vector pages of a 2,000-file workspace fit; more
  // only raised the idle footprint (the OS page cache serves the rest).
  db.pragma(`cache_size = -${Math.max(64, Math.floor(opts.cacheKib ?? 8000))}`);
  let vecAvailable = false;
  let vecError: string | undefined;
  if (opts.loadVec !== false) {
    try {
      sqliteVec.load(db);
      vecAvailable = true;
    } catch (e) {
      vecError = `sqlite-vec could not be loaded (${errorMessage(e)}); vector search is off, keyword search works`;
    }
  } else {
    vecError = "sqlite-vec disabled";
  }
  if (!opts.readonly) migrate(db);
  return { db, vecAvailable, ...(vecError ? { vecError } : {}) };
}

/**
 * Closes an index, leaving it in rollback-journal mode when no other connection has it open. A
 * database in WAL mode can only be opened where its -wal and -shm files exist or can be created,
 * so this is what lets a read-only data dir (a read-only mount, a disk the kernel turned
 * read-only) still be searched after a clean stop; the next read-write open switches back to WAL.
 */
export function closeDatabase(db: Database.Database): void {
  if (!db.open) return;
  if (!db.readonly && !db.memory) {
    try {
      db.pragma("busy_timeout = 0"); // another process has it open: leave WAL mode to the last one out
      db.pragma("journal_mode = DELETE");
    } catch {
      // busy, or the disk is failing: close as it is (the -wal and -shm files stay, which is readable too)
    }
  }
  db.close();
}
