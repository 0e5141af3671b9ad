/**
 * The chunks the facts pass has still to read are queued as they are written (fact_chunks_todo, by
 * a trigger), so a sync finds them without scanning every chunk: before, each sync (one file's
 * edit too) looked for an unread chunk among all of them, ~0.6 s of a held event loop at a million.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { migrate, SCHEMA_VERSION } from "../src/index/db/migrations.js";
import { syncFacts } from "../src/facts/sync-facts.js";
import { PENDING_SQL } from "../src/index/repos/facts-repo.js";
import { indexesPerTest } from "./helpers/workspace.js";
import { rawDb } from "./helpers/raw-db.js";

const FILES: Record<string, string> = {
  "MEMORY.md": "# Team\n\n- Priya Raman leads Project Falcon.\n- Marta Kowalski runs the Lisbon office.\n",
  "memory/2026-05-02.md": "# 2026-05-02\n\n- Priya Raman moved Project Falcon to Lisbon.\n",
  "memory/2026-05-09.md": "# 2026-05-09\n\n- Marta Kowalski hired Jonas for the Lisbon office.\n",
};

const indexOf = indexesPerTest();
const ids = (db: Database.Database, sql: string) => db.prepare(sql).pluck().all() as number[];

describe("the facts pass's queue of chunks to read", () => {
  it("holds what was written and not read yet; the pass reads from it, not from a scan of every chunk", async () => {
    const t = await indexOf(FILES);
    const db = rawDb(t.store);
    expect(ids(db, `SELECT chunk_id FROM fact_chunks_todo`)).toEqual([]);
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${PENDING_SQL}`).all(0, 64) as { detail: string }[]).map(
      (r) => r.detail,
    );
    expect(plan[0]).toMatch(/^(SEARCH|SCAN) t\b/);
    expect(plan.join("\n")).toMatch(/SEARCH c USING INTEGER PRIMARY KEY \(rowid=\?\)/);

    writeFileSync(join(t.root, "memory/2026-05-16.md"), "# 2026-05-16\n\n- Helen Park now leads Project Falcon.\n");
    await t.indexer.sync({ paths: ["memory/2026-05-16.md"] });
    expect(ids(db, `SELECT chunk_id FROM fact_chunks_todo`)).toEqual([]);
    const helen = t.store.facts.pending(0, 10);
    expect(helen).toEqual([]);
    expect(ids(db, `SELECT count(*) FROM chunk_entities WHERE entity = 'helen park'`)[0]).toBeGreaterThan(0);
  });

  it("is filled with every chunk not read when an index without it is migrated, and the next pass reads just those", async () => {
    const t = await indexOf(FILES);
    const db = rawDb(t.store);
    const all = ids(db, `SELECT id FROM chunks ORDER BY id`);
    const unread = all.slice(-2);
    db.exec(`DROP TRIGGER chunks_facts_todo_ai; DROP TABLE fact_chunks_todo;
      DELETE FROM fact_chunks_done WHERE chunk_id IN (${unread.join(",")})`);
    db.pragma(`user_version = ${SCHEMA_VERSION - 2}`); // this migration and the one after it
    migrate(db);
    expect(ids(db, `SELECT chunk_id FROM fact_chunks_todo ORDER BY chunk_id`)).toEqual(unread);
    const report = await syncFacts(t.store);
    expect(report.chunks).toBe(unread.length);
    expect(ids(db, `SELECT chunk_id FROM fact_chunks_todo`)).toEqual([]);
  });

  it("holds every chunk again once the readings are forgotten (new reading rules)", async () => {
    const t = await indexOf(FILES);
    const db = rawDb(t.store);
    t.store.facts.forgetReadings();
    expect(ids(db, `SELECT chunk_id FROM fact_chunks_todo ORDER BY chunk_id`)).toEqual(
      ids(db, `SELECT id FROM chunks ORDER BY id`),
    );
    const report = await syncFacts(t.store);
    expect(report.chunks).toBe(ids(db, `SELECT count(*) FROM chunks`)[0]);
  });
});
