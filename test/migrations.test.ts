import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/index/db/db.js";
import { SCHEMA_VERSION } from "../src/index/db/migrations.js";
import { IndexStore } from "../src/index/repos/store.js";
import { indexedWorkspace } from "./helpers/workspace.js";

const tables = (file: string): string[] => {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'term_list%'`)
      .pluck()
      .all() as string[];
  } finally {
    db.close();
  }
};

describe("index migrations", () => {
  it("an index from schema 8 loses the unused term-list tables and keeps its chunks and search", async () => {
    const { dbPath: file, store } = await indexedWorkspace(
      { "MEMORY.md": "# Memory\n\n- The kafka cluster moved to the new racks.\n" },
      { chunking: { maxTokens: 60, overlapTokens: 0 } },
    );
    store.close();
    expect(tables(file)).toEqual([]);

    // Back to schema 8, with the lists a cortexd of that schema kept.
    const raw = new Database(file);
    raw.exec(`
      CREATE TABLE term_lists (stem TEXT PRIMARY KEY, df INTEGER NOT NULL, size INTEGER NOT NULL, g_min REAL NOT NULL, complete INTEGER NOT NULL, avg_tokens REAL NOT NULL);
      CREATE TABLE term_list_entries (stem TEXT NOT NULL, g REAL NOT NULL, chunk_id INTEGER NOT NULL, PRIMARY KEY (stem, g, chunk_id)) WITHOUT ROWID;
      CREATE TABLE term_list_pending (chunk_id INTEGER PRIMARY KEY);
      INSERT INTO term_list_pending VALUES (1);
    `);
    raw.pragma("user_version = 8");
    raw.close();
    expect(tables(file).sort()).toEqual(["term_list_entries", "term_list_pending", "term_lists"]);

    const upgraded = new IndexStore(openDatabase(file), "t");
    try {
      expect(tables(file)).toEqual([]);
      expect(upgraded.keywordSearch(`"kafka"`, 5)).toHaveLength(1);
    } finally {
      upgraded.close();
    }
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(12); // later migrations append (the lead renumbers at merge)
  });
});
