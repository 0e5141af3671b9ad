/**
 * How many chunks name each entity is kept in entity_counts by triggers, so the entity leg, recall's
 * order and status read one row instead of counting an entity's mentions (80,000 rows for a common
 * name at a million chunks). The counts stay equal to the mentions through edits, deletes (cascaded
 * from the chunks), a re-read of the facts and a migration of an index that had none.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { migrate, SCHEMA_VERSION } from "../src/index/db/migrations.js";
import { COUNTS_SQL } from "../src/index/repos/entity-graph.js";
import { indexesPerTest, type TestIndex } from "./helpers/workspace.js";

const FILES: Record<string, string> = {
  "MEMORY.md": "# Team\n\n- Priya Raman leads Project Falcon.\n- Marta Kowalski runs the Lisbon office.\n",
  "memory/2026-05-02.md":
    "# 2026-05-02\n\n- Priya Raman moved Project Falcon to Lisbon.\n- Jonas reviewed the Falcon budget.\n",
  "memory/2026-05-09.md": "# 2026-05-09\n\n- Marta Kowalski hired Jonas for the Lisbon office.\n",
  "memory/2026-05-16.md": "# 2026-05-16\n\n- Priya Raman and Jonas met Helen Park about Project Falcon.\n",
};

const indexOf = indexesPerTest();
const connections: Database.Database[] = [];
afterEach(() => {
  for (const db of connections.splice(0)) db.close();
});

/** A second connection to the test index's file (the store keeps its own private). */
function sqlite(t: TestIndex): Database.Database {
  const db = new Database(t.dbPath);
  connections.push(db);
  return db;
}

/** Each entity's count as kept, and as counted from its mentions. */
function keptAndCounted(t: TestIndex): { kept: Record<string, number>; counted: Record<string, number> } {
  const db = sqlite(t);
  const rows = (sql: string) =>
    Object.fromEntries((db.prepare(sql).raw().all() as [string, number][]).map(([e, n]) => [e, n]));
  return {
    kept: rows("SELECT entity, chunks FROM entity_counts ORDER BY entity"),
    counted: rows("SELECT entity, count(*) FROM chunk_entities GROUP BY entity ORDER BY entity"),
  };
}

describe("entity counts", () => {
  it("equal the mentions after indexing, edits, deletes and a re-read of the facts", async () => {
    const t = await indexOf(FILES);
    let c = keptAndCounted(t);
    expect(Object.keys(c.counted).length).toBeGreaterThan(3);
    expect(c.kept).toEqual(c.counted);

    writeFileSync(join(t.root, "memory/2026-05-09.md"), "# 2026-05-09\n\n- Helen Park visited the Porto office.\n");
    rmSync(join(t.root, "memory/2026-05-16.md"));
    writeFileSync(join(t.root, "memory/2026-05-23.md"), "# 2026-05-23\n\n- Priya Raman shipped Project Falcon.\n");
    await t.indexer.sync();
    c = keptAndCounted(t);
    expect(c.kept).toEqual(c.counted);
    expect(c.kept["marta kowalski"]).toBe(1);

    t.store.facts.forgetReadings();
    expect(keptAndCounted(t).kept).toEqual({});
    await t.indexer.sync();
    c = keptAndCounted(t);
    expect(Object.keys(c.counted).length).toBeGreaterThan(3);
    expect(c.kept).toEqual(c.counted);
  });

  it("are filled from the mentions when an index without them is migrated", async () => {
    const t = await indexOf(FILES);
    const db = sqlite(t);
    db.exec("DROP TRIGGER chunk_entities_count_ai; DROP TRIGGER chunk_entities_count_ad; DROP TABLE entity_counts");
    db.pragma(`user_version = ${SCHEMA_VERSION - 3}`); // this migration and those after it
    migrate(db);
    const c = keptAndCounted(t);
    expect(Object.keys(c.kept).length).toBeGreaterThan(3);
    expect(c.kept).toEqual(c.counted);
  });

  it("are read, not counted: the entity leg's count reads one row a key whatever its mentions", async () => {
    const t = await indexOf(FILES);
    const graph = t.store.entities;
    expect(graph.counts(["priya raman", "nobody at all"], 100)).toEqual([
      { entity: "priya raman", name: "Priya Raman", chunks: keptAndCounted(t).counted["priya raman"] },
    ]);
    // Shown up to the cap + 1, as before.
    expect(graph.counts(["priya raman"], 1)[0]!.chunks).toBe(2);
    const plan = (
      sqlite(t)
        .prepare(`EXPLAIN QUERY PLAN ${COUNTS_SQL}`)
        .all(2, JSON.stringify(["priya raman"])) as { detail: string }[]
    ).map((r) => r.detail);
    expect(plan.join("\n")).toMatch(/SEARCH entity_counts USING PRIMARY KEY/);
  });
});
