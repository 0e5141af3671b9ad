import type Database from "better-sqlite3";

/**
 * The triggers that keep what the facts pass derives in step with its rows (migrations 13 and 14):
 * the statements to relink, and each entity's chunk count. One home: the facts repository drops and
 * recreates them around emptying those tables whole (facts-repo.ts forgetReadings).
 */
export const FACT_TRIGGERS = {
  fact_statements_relink_ai: `CREATE TRIGGER IF NOT EXISTS fact_statements_relink_ai AFTER INSERT ON fact_statements
        BEGIN INSERT OR IGNORE INTO fact_relink (statement_id) VALUES (new.id); END`,
  fact_statements_relink_ad: `CREATE TRIGGER IF NOT EXISTS fact_statements_relink_ad AFTER DELETE ON fact_statements
        BEGIN INSERT OR IGNORE INTO fact_relink (statement_id) VALUES (old.id); END`,
  chunk_entities_count_ai: `CREATE TRIGGER IF NOT EXISTS chunk_entities_count_ai AFTER INSERT ON chunk_entities
        BEGIN INSERT INTO entity_counts (entity, chunks) VALUES (new.entity, 1)
          ON CONFLICT (entity) DO UPDATE SET chunks = chunks + 1; END`,
  chunk_entities_count_ad: `CREATE TRIGGER IF NOT EXISTS chunk_entities_count_ad AFTER DELETE ON chunk_entities
        BEGIN UPDATE entity_counts SET chunks = chunks - 1 WHERE entity = old.entity;
          DELETE FROM entity_counts WHERE entity = old.entity AND chunks <= 0; END`,
  chunks_facts_todo_ai: `CREATE TRIGGER IF NOT EXISTS chunks_facts_todo_ai AFTER INSERT ON chunks
        BEGIN INSERT OR IGNORE INTO fact_chunks_todo (chunk_id) VALUES (new.id); END`,
} as const;

/**
 * Versioned schema migrations. `PRAGMA user_version` holds the number of migrations applied.
 * Append new migrations; never edit a released one.
 */
export const MIGRATIONS: readonly ((db: Database.Database) => void)[] = [
  (db) => {
    db.exec(`
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

      CREATE TABLE files (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        class TEXT NOT NULL,
        date TEXT,
        size INTEGER NOT NULL,
        mtime_ms INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        indexed_bytes INTEGER NOT NULL DEFAULT 0,
        indexed_lines INTEGER NOT NULL DEFAULT 0,
        malformed INTEGER NOT NULL DEFAULT 0,
        indexed_at INTEGER NOT NULL
      );

      CREATE TABLE chunks (
        id INTEGER PRIMARY KEY,
        file_id INTEGER NOT NULL REFERENCES files(id),
        seq INTEGER NOT NULL,
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        text TEXT NOT NULL,
        hash BLOB NOT NULL,
        ts INTEGER,
        vec_state INTEGER NOT NULL DEFAULT 0,
        UNIQUE (file_id, seq)
      );
      CREATE INDEX chunks_pending ON chunks(vec_state) WHERE vec_state = 0;

      CREATE VIRTUAL TABLE chunks_fts USING fts5(
        text, content = 'chunks', content_rowid = 'id',
        tokenize = 'porter unicode61 remove_diacritics 2'
      );

      CREATE VIRTUAL TABLE files_fts USING fts5(
        path, content = 'files', content_rowid = 'id',
        tokenize = 'unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER files_ai AFTER INSERT ON files BEGIN
        INSERT INTO files_fts(rowid, path) VALUES (new.id, new.path);
      END;
      CREATE TRIGGER files_ad AFTER DELETE ON files BEGIN
        INSERT INTO files_fts(files_fts, rowid, path) VALUES ('delete', old.id, old.path);
      END;
      CREATE TRIGGER files_au AFTER UPDATE OF path ON files BEGIN
        INSERT INTO files_fts(files_fts, rowid, path) VALUES ('delete', old.id, old.path);
        INSERT INTO files_fts(rowid, path) VALUES (new.id, new.path);
      END;

      CREATE TABLE embed_cache (
        identity TEXT NOT NULL,
        hash BLOB NOT NULL,
        vector BLOB,
        last_used INTEGER NOT NULL,
        PRIMARY KEY (identity, hash)
      ) WITHOUT ROWID;
      CREATE INDEX embed_cache_lru ON embed_cache(last_used);
    `);
  },
  // 2: incremental transcripts: where the content hash and the chunking can resume after an append.
  (db) => {
    db.exec(`
      ALTER TABLE files ADD COLUMN hash_offset INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE files ADD COLUMN hash_state BLOB;
      ALTER TABLE files ADD COLUMN resume_offset INTEGER;
      ALTER TABLE files ADD COLUMN resume_line INTEGER;
      ALTER TABLE files ADD COLUMN resume_seq INTEGER;
      ALTER TABLE files ADD COLUMN resume_malformed INTEGER;
    `);
  },
  // 3: recall access log (which memories were injected, for which queries): feeds promotion.
  (db) => {
    db.exec(`
      CREATE TABLE recalls (
        id INTEGER PRIMARY KEY,
        chunk_hash BLOB NOT NULL,
        path TEXT NOT NULL,
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        query_hash BLOB NOT NULL,
        at INTEGER NOT NULL
      );
      CREATE INDEX recalls_chunk ON recalls(chunk_hash);
      CREATE INDEX recalls_at ON recalls(at);
    `);
  },
  // 4: heartbeat and consolidation: duplicate groups, reinforcement, supersession, promotions, run reports.
  // Keyed by chunk content hash, so they survive re-indexing; rebuilt by each consolidation run.
  (db) => {
    db.exec(`
      CREATE TABLE heartbeat (id INTEGER PRIMARY KEY CHECK (id = 1), at INTEGER NOT NULL, beats INTEGER NOT NULL);
      CREATE TABLE dup_groups (
        chunk_hash BLOB PRIMARY KEY,
        canonical_hash BLOB NOT NULL,
        canonical_path TEXT NOT NULL,
        canonical_start INTEGER NOT NULL,
        canonical_end INTEGER NOT NULL,
        size INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE reinforcement (chunk_hash BLOB PRIMARY KEY, count INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE supersessions (
        chunk_hash BLOB PRIMARY KEY,
        by_hash BLOB NOT NULL,
        by_path TEXT NOT NULL,
        by_start INTEGER NOT NULL,
        valid_to TEXT NOT NULL,
        reason TEXT NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE promotions (chunk_hash BLOB PRIMARY KEY, path TEXT NOT NULL, at INTEGER NOT NULL, backup TEXT) WITHOUT ROWID;
      CREATE TABLE consolidation_reports (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, dry_run INTEGER NOT NULL, ms INTEGER NOT NULL, report TEXT NOT NULL);
    `);
  },
  // 5: large indexes. Quantized codes of the chunk vectors for the in-memory scan (see
  // vector-codes.ts; written by the store, which needs sqlite-vec; meta vector_codes holds the
  // quantizer). A partial index for chunks with nothing to embed, so counting vectors is
  // chunks − pending − none instead of a scan of every chunk row (seconds at 1M chunks).
  (db) => {
    db.exec(`
      CREATE TABLE chunk_codes (id INTEGER PRIMARY KEY, code BLOB NOT NULL);
      CREATE INDEX chunks_novector ON chunks(vec_state) WHERE vec_state = 2;
    `);
  },
  // 6: status at scale: the knowledge summary counts transcripts and memory days on indexes instead
  // of scanning every file row (slow at 100k files).
  (db) => {
    db.exec(`
      CREATE INDEX files_class ON files(class);
      CREATE INDEX files_date ON files(date) WHERE date IS NOT NULL;
    `);
  },
  // 7: impact-ordered lists of the common words of a large index, a cache of the FTS index
  // (dropped by 9).
  (db) => {
    db.exec(`
      CREATE TABLE term_lists (
        stem TEXT PRIMARY KEY,
        df INTEGER NOT NULL,
        size INTEGER NOT NULL,
        g_min REAL NOT NULL,
        complete INTEGER NOT NULL,
        avg_tokens REAL NOT NULL,
        rows INTEGER NOT NULL,
        built_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE term_list_entries (stem TEXT NOT NULL, g REAL NOT NULL, chunk_id INTEGER NOT NULL, PRIMARY KEY (stem, g, chunk_id)) WITHOUT ROWID;
      CREATE INDEX term_list_entries_chunk ON term_list_entries(chunk_id);
      CREATE TABLE term_list_pending (chunk_id INTEGER PRIMARY KEY);
    `);
  },
  // 8: passage vectors of static models (see passage-vectors.ts), one int8 blob per chunk. An index
  // from before them gets them from the next sync (chunks without them are scored at query time).
  (db) => {
    db.exec(`CREATE TABLE passage_vectors (id INTEGER PRIMARY KEY, vecs BLOB NOT NULL);`);
  },
  // 9: the impact-ordered lists of migration 7 go (nothing reads them: keyword-postings.ts), with
  // the space they held in a large index.
  (db) => {
    db.exec(`
      DROP TABLE IF EXISTS term_list_pending;
      DROP TABLE IF EXISTS term_list_entries;
      DROP TABLE IF EXISTS term_lists;
    `);
  },
  // 10: time-window recall reads the transcript chunks of a span of days by their first message's
  // time (search/recall-window.ts) on an index, not a scan of every chunk.
  (db) => {
    db.exec(`CREATE INDEX IF NOT EXISTS chunks_ts ON chunks(ts) WHERE ts IS NOT NULL;`);
  },
  // 11: facts over time and entities (src/facts, repos/facts-repo.ts): the statements of each chunk with
  // their time, the entities each chunk names, and each statement's (entity, class) slots, linked
  // in time order at index time. Derived from the chunks: deleted with them, rebuilt by a sync.
  (db) => {
    db.exec(`
      CREATE TABLE IF NOT EXISTS fact_statements (
        id INTEGER PRIMARY KEY,
        chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        line INTEGER NOT NULL,
        at INTEGER,
        text TEXT NOT NULL,
        reading TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS fact_statements_chunk ON fact_statements(chunk_id);
      CREATE TABLE IF NOT EXISTS fact_chunks_done (chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE);
      CREATE TABLE IF NOT EXISTS chunk_entities (
        chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        entity TEXT NOT NULL,
        name TEXT NOT NULL,
        PRIMARY KEY (chunk_id, entity)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS chunk_entities_entity ON chunk_entities(entity);
      CREATE TABLE IF NOT EXISTS fact_slots (
        entity TEXT NOT NULL,
        cls TEXT NOT NULL,
        statement_id INTEGER NOT NULL REFERENCES fact_statements(id) ON DELETE CASCADE,
        news TEXT NOT NULL,
        olds TEXT NOT NULL,
        superseded_by INTEGER,
        PRIMARY KEY (entity, cls, statement_id)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS fact_slots_statement ON fact_slots(statement_id);
      CREATE TABLE IF NOT EXISTS fact_seen (path TEXT NOT NULL, text TEXT NOT NULL, seen_at INTEGER NOT NULL, PRIMARY KEY (path, text)) WITHOUT ROWID;
    `);
  },
  // 12: who may see each chunk (visibility/visibility.ts), decided where it was written and read
  // again from the files on every re-chunk (the chunking version changed with it, so every file is).
  (db) => {
    const has = (db.prepare(`PRAGMA table_info(chunks)`).all() as { name: string }[]).some(
      (c) => c.name === "visibility",
    );
    if (!has) db.exec(`ALTER TABLE chunks ADD COLUMN visibility TEXT NOT NULL DEFAULT 'open';`);
    db.exec(`CREATE INDEX IF NOT EXISTS chunks_visibility ON chunks(visibility);`);
  },
  // Where a markdown log's chunking resumes after an append: the chunker's state at its last chunk
  // (ingest/markdown-resume.ts), so a save re-reads only the log's tail. Null: re-chunked whole.
  (db) => {
    const has = (db.prepare(`PRAGMA table_info(files)`).all() as { name: string }[]).some(
      (c) => c.name === "resume_chunker",
    );
    if (!has) db.exec(`ALTER TABLE files ADD COLUMN resume_chunker TEXT;`);
  },
  // Incremental fact links (facts/relink.ts): every statement's (entity, class) entries, the name
  // class edges it contributes, the learned classes, and a queue of statements that came or went
  // (filled by triggers, cascaded chunk deletes included), so a sync relinks only the slots they touch.
  // Existing statements are queued: the next sync links them all once. A partial index holds the
  // superseded slot rows: recall reads the slots of a prompt's entities in which something changed.
  (db) => {
    db.exec(`
      CREATE TABLE IF NOT EXISTS fact_entries (
        entity TEXT NOT NULL,
        cls TEXT NOT NULL,
        statement_id INTEGER NOT NULL,
        news TEXT NOT NULL,
        olds TEXT NOT NULL,
        PRIMARY KEY (entity, cls, statement_id)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS fact_entries_statement ON fact_entries(statement_id);
      CREATE INDEX IF NOT EXISTS fact_entries_cls ON fact_entries(cls);
      CREATE TABLE IF NOT EXISTS fact_class_edges (statement_id INTEGER NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS fact_class_edges_statement ON fact_class_edges(statement_id);
      CREATE TABLE IF NOT EXISTS fact_name_classes (name TEXT PRIMARY KEY, cls TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS fact_relink (statement_id INTEGER PRIMARY KEY);
      CREATE INDEX IF NOT EXISTS fact_slots_changed ON fact_slots(entity, cls) WHERE superseded_by IS NOT NULL;
      ${FACT_TRIGGERS.fact_statements_relink_ai};
      ${FACT_TRIGGERS.fact_statements_relink_ad};
      DELETE FROM fact_slots;
      INSERT OR IGNORE INTO fact_relink (statement_id) SELECT id FROM fact_statements;
    `);
  },
  // How many chunks name each entity, kept by triggers (cascaded chunk deletes included): the entity
  // leg, recall's order and status read a count instead of counting an entity's rows (up to 8% — 25%
  // for recall's order — of the chunks: 80,000 rows a common name at a million chunks).
  (db) => {
    db.exec(`
      CREATE TABLE IF NOT EXISTS entity_counts (entity TEXT PRIMARY KEY, chunks INTEGER NOT NULL) WITHOUT ROWID;
      ${FACT_TRIGGERS.chunk_entities_count_ai};
      ${FACT_TRIGGERS.chunk_entities_count_ad};
      DELETE FROM entity_counts;
      INSERT INTO entity_counts (entity, chunks) SELECT entity, count(*) FROM chunk_entities GROUP BY entity;
    `);
  },
  // The chunks the facts pass has still to read, queued as they are written (a trigger): the pass
  // found them by scanning every chunk for one not in fact_chunks_done, ~0.6 s of a held event
  // loop at a million chunks on every sync, even one that wrote nothing.
  (db) => {
    db.exec(`
      CREATE TABLE IF NOT EXISTS fact_chunks_todo (chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE);
      ${FACT_TRIGGERS.chunks_facts_todo_ai};
      INSERT OR IGNORE INTO fact_chunks_todo (chunk_id)
        SELECT id FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM fact_chunks_done d WHERE d.chunk_id = c.id);
    `);
  },
  // Whether a name-class edge still exists, by its names (facts/relink.ts: a link whose edges
  // neither appear nor vanish leaves every class as it was, without reading all the edges).
  (db) => {
    db.exec(`CREATE INDEX IF NOT EXISTS fact_class_edges_names ON fact_class_edges(a, b);`);
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Applies pending migrations, each in its own transaction. Refuses a DB from a newer cortexd. */
export function migrate(db: Database.Database): { from: number; to: number } {
  const from = db.pragma("user_version", { simple: true }) as number;
  if (from > SCHEMA_VERSION) {
    throw new Error(
      `index schema version ${from} is newer than this cortexd supports (${SCHEMA_VERSION}); upgrade cortexd or delete the index to rebuild it from the files`,
    );
  }
  for (let v = from; v < SCHEMA_VERSION; v++) {
    db.transaction(() => {
      MIGRATIONS[v]!(db);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
  return { from, to: SCHEMA_VERSION };
}
