import type { IndexStore } from "../index/store.js";

const blob = (hex: string) => Buffer.from(hex, "hex");

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

function hasTables(store: IndexStore): boolean {
  return !!store.db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'dup_groups'`).get();
}

/** What consolidation recorded about these chunk hashes (one query per table). */
export function marksFor(store: IndexStore, hashes: readonly string[]): Map<string, ConsolidationMarks> {
  const out = new Map<string, ConsolidationMarks>();
  if (hashes.length === 0 || !hasTables(store)) return out;
  const json = JSON.stringify([...new Set(hashes)]);
  const get = (h: string) => {
    let m = out.get(h);
    if (!m) out.set(h, (m = {}));
    return m;
  };
  const db = store.db;
  for (const r of db
    .prepare(
      `SELECT lower(hex(chunk_hash)) AS h, lower(hex(canonical_hash)) AS ch, canonical_path AS p, canonical_start AS s, canonical_end AS e, size
       FROM dup_groups WHERE chunk_hash IN (SELECT unhex(value) FROM json_each(?))`,
    )
    .all(json) as { h: string; ch: string; p: string; s: number; e: number; size: number }[]) {
    get(r.h).duplicate = { canonicalHash: r.ch, canonicalPath: r.p, canonicalStart: r.s, canonicalEnd: r.e, size: r.size };
  }
  for (const r of db
    .prepare(
      `SELECT lower(hex(chunk_hash)) AS h, lower(hex(by_hash)) AS bh, by_path AS p, by_start AS s, valid_to AS v, reason
       FROM supersessions WHERE chunk_hash IN (SELECT unhex(value) FROM json_each(?))`,
    )
    .all(json) as { h: string; bh: string; p: string; s: number; v: string; reason: string }[]) {
    get(r.h).superseded = { byHash: r.bh, byPath: r.p, byStart: r.s, validTo: r.v, reason: r.reason };
  }
  for (const r of db
    .prepare(`SELECT lower(hex(chunk_hash)) AS h, count FROM reinforcement WHERE chunk_hash IN (SELECT unhex(value) FROM json_each(?))`)
    .all(json) as { h: string; count: number }[]) {
    get(r.h).reinforced = r.count;
  }
  return out;
}

/** Reinforcement count of one chunk (0 when none): usable by ranking. */
export function reinforcementOf(store: IndexStore, hash: string): number {
  if (!hasTables(store)) return 0;
  return (store.db.prepare(`SELECT count FROM reinforcement WHERE chunk_hash = ?`).get(blob(hash)) as { count: number } | undefined)?.count ?? 0;
}

export interface ConsolidationTables {
  duplicates: { hash: string; info: DuplicateInfo }[];
  reinforcement: { hash: string; count: number }[];
  supersessions: { hash: string; info: SupersededInfo }[];
}

/** Replaces what the previous run recorded, in one transaction (a crash keeps the previous state). */
export function writeTables(store: IndexStore, t: ConsolidationTables): void {
  const db = store.db;
  const dup = db.prepare(`INSERT OR REPLACE INTO dup_groups (chunk_hash, canonical_hash, canonical_path, canonical_start, canonical_end, size) VALUES (?, ?, ?, ?, ?, ?)`);
  const rein = db.prepare(`INSERT OR REPLACE INTO reinforcement (chunk_hash, count) VALUES (?, ?)`);
  const sup = db.prepare(`INSERT OR REPLACE INTO supersessions (chunk_hash, by_hash, by_path, by_start, valid_to, reason) VALUES (?, ?, ?, ?, ?, ?)`);
  db.transaction(() => {
    db.exec(`DELETE FROM dup_groups; DELETE FROM reinforcement; DELETE FROM supersessions;`);
    for (const d of t.duplicates) dup.run(blob(d.hash), blob(d.info.canonicalHash), d.info.canonicalPath, d.info.canonicalStart, d.info.canonicalEnd, d.info.size);
    for (const r of t.reinforcement) rein.run(blob(r.hash), r.count);
    for (const s of t.supersessions) sup.run(blob(s.hash), blob(s.info.byHash), s.info.byPath, s.info.byStart, s.info.validTo, s.info.reason);
  })();
}
