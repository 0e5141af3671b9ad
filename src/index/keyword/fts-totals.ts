import type Database from "better-sqlite3";

/**
 * A reader of the rows and tokens of an FTS5 table, from its averages record (`<table>_data` id 1), which
 * FTS5 updates in the same transaction as every insert and delete: an exact count without a scan.
 * For an external-content table kept in step with its content table, rows = the content's rows.
 */
export function ftsTotalsReader(
  db: Database.Database,
  table: "chunks_fts" | "files_fts",
): () => { rows: number; tokens: number } {
  const averages = db.prepare(`SELECT block FROM ${table}_data WHERE id = 1`).pluck();
  return () => {
    const b = averages.get() as Buffer | undefined;
    return b ? decodeAverages(b) : { rows: 0, tokens: 0 };
  };
}

/** The first two varints of an FTS5 averages record: rows, then tokens of the first column. */
function decodeAverages(b: Buffer): { rows: number; tokens: number } {
  let pos = 0;
  const varint = (): number => {
    // SQLite 4-style varint as FTS5 writes it (big-endian 7-bit groups, high bit = more).
    let v = 0;
    for (let i = 0; i < 9 && pos < b.length; i++) {
      const byte = b[pos++]!;
      if (i === 8) return v * 256 + byte;
      v = v * 128 + (byte & 0x7f);
      if (!(byte & 0x80)) return v;
    }
    return v;
  };
  const rows = varint();
  const tokens = varint();
  return { rows, tokens };
}
