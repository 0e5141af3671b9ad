import type Database from "better-sqlite3";
import { hexToBlob } from "../db/blobs.js";
import { CommitWatch } from "../db/db-generation.js";
import { statements, tableExists } from "../db/statements.js";

export interface DuplicateInfo {
  canonicalHash: string;
  canonicalPath: string;
  canonicalStart: number;
  canonicalEnd: number;
  size: number;
}

export interface SupersededInfo {
  byHash: string;
  byPath: string;
  byStart: number;
  validTo: string;
  reason: string;
}

export interface ConsolidationMarks {
  duplicate?: DuplicateInfo;
  superseded?: SupersededInfo;
  reinforced?: number;
}

export interface ConsolidationTables {
  duplicates: { hash: string; info: DuplicateInfo }[];
  reinforcement: { hash: string; count: number }[];
  supersessions: { hash: string; info: SupersededInfo }[];
}

/**
 * What consolidation records: duplicate groups, reinforcement and supersessions (replaced by each
 * run), the promotions made (kept), and the latest run reports (as JSON text).
 */
export class ConsolidationRecords {
  private readonly stmts;
  /** Writes of the tables by this connection (another connection's move PRAGMA data_version). */
  private writes = 0;
  /** Whether any mark is recorded, as of a data version and this connection's writes. */
  private recorded: { writes: number; any: boolean } | null = null;
  private readonly commits;
  private tablesExist = false;

  constructor(private readonly db: Database.Database) {
    this.commits = new CommitWatch(db);
    this.stmts = statements(db, {
      anyMark: `SELECT EXISTS (SELECT 1 FROM dup_groups) OR EXISTS (SELECT 1 FROM supersessions) OR EXISTS (SELECT 1 FROM reinforcement)`,
      dupsOf: `SELECT lower(hex(chunk_hash)) AS h, lower(hex(canonical_hash)) AS ch, canonical_path AS p, canonical_start AS s, canonical_end AS e, size
       FROM dup_groups WHERE chunk_hash IN (SELECT unhex(value) FROM json_each(?))`,
      supersessionsOf: `SELECT lower(hex(chunk_hash)) AS h, lower(hex(by_hash)) AS bh, by_path AS p, by_start AS s, valid_to AS v, reason
       FROM supersessions WHERE chunk_hash IN (SELECT unhex(value) FROM json_each(?))`,
      reinforcementsOf: `SELECT lower(hex(chunk_hash)) AS h, count FROM reinforcement WHERE chunk_hash IN (SELECT unhex(value) FROM json_each(?))`,
      reinforcementOf: `SELECT count FROM reinforcement WHERE chunk_hash = ?`,
      insertDup: `INSERT OR REPLACE INTO dup_groups (chunk_hash, canonical_hash, canonical_path, canonical_start, canonical_end, size) VALUES (?, ?, ?, ?, ?, ?)`,
      insertReinforcement: `INSERT OR REPLACE INTO reinforcement (chunk_hash, count) VALUES (?, ?)`,
      insertSupersession: `INSERT OR REPLACE INTO supersessions (chunk_hash, by_hash, by_path, by_start, valid_to, reason) VALUES (?, ?, ?, ?, ?, ?)`,
      clearDups: `DELETE FROM dup_groups`,
      clearReinforcement: `DELETE FROM reinforcement`,
      clearSupersessions: `DELETE FROM supersessions`,
      insertPromotion: `INSERT OR IGNORE INTO promotions (chunk_hash, path, at, backup) VALUES (?, ?, ?, ?)`,
      insertReport: `INSERT INTO consolidation_reports (at, dry_run, ms, report) VALUES (?, ?, ?, ?)`,
      trimReports: `DELETE FROM consolidation_reports WHERE id NOT IN (SELECT id FROM consolidation_reports ORDER BY id DESC LIMIT ?)`,
      latestReports: `SELECT report FROM consolidation_reports ORDER BY id DESC LIMIT ?`,
    });
  }

  private hasTables(): boolean {
    // Tables are only ever added (migrations), so once seen they stay.
    return (this.tablesExist ||= tableExists(this.db, "dup_groups"));
  }

  /**
   * Whether consolidation recorded anything at all: most recalls in a workspace without
   * duplicates or supersessions then skip the per-table queries. Checked again after this
   * connection writes the tables or another connection commits anything.
   */
  private anyMarks(): boolean {
    const version = this.commits.read();
    if (this.recorded?.writes === this.writes && !this.commits.changed(version)) return this.recorded.any;
    const any = this.hasTables() && !!this.stmts.anyMark.pluck().get();
    this.recorded = { writes: this.writes, any };
    this.commits.mark(version);
    return any;
  }

  /** A transaction failed (index/db/copies.ts): whether anything is recorded is asked again. */
  rolledBack(): void {
    this.recorded = null;
  }

  /** What consolidation recorded about these chunk hashes (one query per table). */
  marksFor(hashes: readonly string[]): Map<string, ConsolidationMarks> {
    const out = new Map<string, ConsolidationMarks>();
    if (hashes.length === 0 || !this.anyMarks()) return out;
    const json = JSON.stringify([...new Set(hashes)]);
    const get = (h: string) => {
      let m = out.get(h);
      if (!m) out.set(h, (m = {}));
      return m;
    };
    for (const r of this.stmts.dupsOf.all(json) as {
      h: string;
      ch: string;
      p: string;
      s: number;
      e: number;
      size: number;
    }[]) {
      get(r.h).duplicate = {
        canonicalHash: r.ch,
        canonicalPath: r.p,
        canonicalStart: r.s,
        canonicalEnd: r.e,
        size: r.size,
      };
    }
    for (const r of this.stmts.supersessionsOf.all(json) as {
      h: string;
      bh: string;
      p: string;
      s: number;
      v: string;
      reason: string;
    }[]) {
      get(r.h).superseded = { byHash: r.bh, byPath: r.p, byStart: r.s, validTo: r.v, reason: r.reason };
    }
    for (const r of this.stmts.reinforcementsOf.all(json) as { h: string; count: number }[]) {
      get(r.h).reinforced = r.count;
    }
    return out;
  }

  /** Reinforcement count of one chunk (0 when none): usable by ranking. */
  reinforcementOf(hash: string): number {
    if (!this.hasTables()) return 0;
    return (this.stmts.reinforcementOf.get(hexToBlob(hash)) as { count: number } | undefined)?.count ?? 0;
  }

  /** Replaces what the previous run recorded, in one transaction (a crash keeps the previous state). */
  writeTables(t: ConsolidationTables): void {
    const { insertDup: dup, insertReinforcement: rein, insertSupersession: sup } = this.stmts;
    this.writes++;
    this.db.transaction(() => {
      this.stmts.clearDups.run();
      this.stmts.clearReinforcement.run();
      this.stmts.clearSupersessions.run();
      for (const d of t.duplicates)
        dup.run(
          hexToBlob(d.hash),
          hexToBlob(d.info.canonicalHash),
          d.info.canonicalPath,
          d.info.canonicalStart,
          d.info.canonicalEnd,
          d.info.size,
        );
      for (const r of t.reinforcement) rein.run(hexToBlob(r.hash), r.count);
      for (const s of t.supersessions)
        sup.run(
          hexToBlob(s.hash),
          hexToBlob(s.info.byHash),
          s.info.byPath,
          s.info.byStart,
          s.info.validTo,
          s.info.reason,
        );
    })();
  }

  /** Records promoted chunks (a chunk promoted before keeps its first record), in one transaction. */
  recordPromotions(promoted: readonly { hash: string; path: string }[], at: number, backup: string | null): void {
    const ins = this.stmts.insertPromotion;
    this.db.transaction(() => {
      for (const c of promoted) ins.run(hexToBlob(c.hash), c.path, at, backup);
    })();
  }

  /** Saves a run's report (JSON text) and keeps only the latest `keep`, in one transaction. */
  saveReport(r: { at: number; dryRun: boolean; ms: number; json: string }, keep: number): void {
    this.db.transaction(() => {
      this.stmts.insertReport.run(r.at, r.dryRun ? 1 : 0, r.ms, r.json);
      this.stmts.trimReports.run(keep);
    })();
  }

  /** The latest reports' JSON text, newest first (none in an index from before reports). */
  latestReports(limit: number): string[] {
    if (!tableExists(this.db, "consolidation_reports")) return [];
    return (this.stmts.latestReports.all(limit) as { report: string }[]).map((r) => r.report);
  }
}
