import type Database from "better-sqlite3";
import { mergeFtsSegments } from "../keyword/fts-merge.js";
import { statements } from "./statements.js";

/** Keeping the database file healthy: liveness and heartbeat writes, FTS segment merging, checks, checkpoints, VACUUM. */
export class DbUpkeep {
  private readonly stmts;

  constructor(private readonly db: Database.Database) {
    this.stmts = statements(db, {
      ping: `SELECT 1`,
      heartbeat: `INSERT INTO heartbeat (id, at, beats) VALUES (1, ?, 1) ON CONFLICT (id) DO UPDATE SET at = excluded.at, beats = beats + 1`,
    });
  }

  /** The database answers a read and takes a write (the one-row heartbeat table); throws when it does not. */
  heartbeat(at: number): void {
    this.stmts.ping.get();
    this.stmts.heartbeat.run(at);
  }

  /** Merges the chunk FTS5 index's segments in steps (see fts-merge). Returns the time taken in ms. */
  mergeFtsSegments(): Promise<number> {
    return mergeFtsSegments(this.db);
  }

  /** PRAGMA quick_check's verdict ("ok" when sound). */
  quickCheck(): string {
    return (this.db.pragma("quick_check", { simple: true }) as string) ?? "unknown";
  }

  /** Pages in the file, and how many of them are free. */
  pages(): { pages: number; freePages: number } {
    const pages = this.db.pragma("page_count", { simple: true }) as number;
    const freePages = this.db.pragma("freelist_count", { simple: true }) as number;
    return { pages, freePages };
  }

  vacuum(): void {
    this.db.exec("VACUUM");
  }

  /** Checkpoints the WAL into the database file and truncates it. */
  walCheckpoint(): { busy: number; log: number; checkpointed: number }[] {
    return this.db.pragma("wal_checkpoint(TRUNCATE)") as { busy: number; log: number; checkpointed: number }[];
  }
}
