/**
 * Recall asks the consolidation tables about its candidates on every turn; it skips the queries
 * while nothing is recorded, so it must notice as soon as something is: a consolidation run on the
 * same connection, or on another one (another process, the CLI) writing the same index file.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../src/index/db/db.js";
import { IndexStore } from "../src/index/repos/store.js";
import type { ConsolidationTables } from "../src/index/repos/consolidation-records.js";
import { tempDir } from "./helpers/workspace.js";

const A = "a".repeat(64);
const B = "b".repeat(64);
const C = "c".repeat(64);

const duplicates: ConsolidationTables = {
  duplicates: [
    {
      hash: B,
      info: { canonicalHash: A, canonicalPath: "memory/2026-03-02.md", canonicalStart: 3, canonicalEnd: 4, size: 2 },
    },
  ],
  reinforcement: [],
  supersessions: [],
};
const reinforced: ConsolidationTables = { duplicates: [], reinforcement: [{ hash: C, count: 3 }], supersessions: [] };
const nothing: ConsolidationTables = { duplicates: [], reinforcement: [], supersessions: [] };

const open: IndexStore[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});
function store(path: string): IndexStore {
  const s = new IndexStore(openDatabase(path), "test");
  open.push(s);
  return s;
}

describe("consolidation marks seen by recall", () => {
  it("follow a consolidation run on the same connection", () => {
    const s = store(join(tempDir(), "index.sqlite"));
    expect(s.records.marksFor([A, B, C]).size).toBe(0);
    s.records.writeTables(duplicates);
    expect(s.records.marksFor([A, B, C]).get(B)?.duplicate?.canonicalHash).toBe(A);
    s.records.writeTables(reinforced);
    const marks = s.records.marksFor([A, B, C]);
    expect([...marks.keys()]).toEqual([C]);
    expect(marks.get(C)?.reinforced).toBe(3);
    s.records.writeTables(nothing);
    expect(s.records.marksFor([A, B, C]).size).toBe(0);
  });

  it("follow a consolidation run by another connection to the same index", () => {
    const path = join(tempDir(), "index.sqlite");
    const daemon = store(path);
    const other = store(path);
    expect(daemon.records.marksFor([A, B]).size).toBe(0);
    other.records.writeTables(duplicates);
    expect(daemon.records.marksFor([A, B]).get(B)?.duplicate?.size).toBe(2);
    other.records.writeTables(nothing);
    expect(daemon.records.marksFor([A, B]).size).toBe(0);
  });
});
