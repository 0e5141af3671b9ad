import type Database from "better-sqlite3";

/** Everything the index holds, without row ids or timestamps: equal dumps = equal indexes. */
export function dumpIndex(db: Database.Database): unknown {
  const files = db
    .prepare(`SELECT path, class, date, size, sha256, indexed_lines, malformed FROM files ORDER BY path`)
    .all();
  const chunks = db
    .prepare(
      `SELECT f.path, c.seq, c.start_line, c.end_line, c.hash, c.ts, c.vec_state, c.text FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY f.path, c.seq`,
    )
    .all();
  const hasVec = !!db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'chunks_vec'`).get();
  const vectors = hasVec
    ? (
        db
          .prepare(
            `SELECT f.path, c.seq, v.embedding FROM chunks_vec v JOIN chunks c ON c.id = v.rowid JOIN files f ON f.id = c.file_id ORDER BY f.path, c.seq`,
          )
          .all() as { path: string; seq: number; embedding: Buffer }[]
      ).map((r) => ({ ...r, embedding: r.embedding.toString("base64") }))
    : [];
  const vecCount = hasVec ? (db.prepare(`SELECT count(*) AS n FROM chunks_vec`).get() as { n: number }).n : 0;
  // FTS must hold exactly the chunks: integrity-check compares the index with the content table.
  db.prepare(`INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)`).run();
  const ftsRows = (db.prepare(`SELECT count(*) AS n FROM chunks_fts`).get() as { n: number }).n;
  return { files, chunks, vectors, vecCount, ftsRows };
}
