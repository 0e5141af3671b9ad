import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openTestIndex, tempDir, writeFiles } from "./helpers/workspace.js";
import { rawDb } from "./helpers/raw-db.js";

/**
 * Status reads its counts without scanning the tables (FTS5 averages records, partial indexes,
 * indexes on files): they must still equal what count(*) says, through adds, edits and deletes.
 */
describe("index counts for status", () => {
  it("equal count(*) over the tables after indexing, editing and deleting files", async () => {
    const root = tempDir();
    writeFiles(root, {
      "MEMORY.md": "# Memory\n\n- Sam bakes bread on Sundays.\n",
      "memory/2026-11-01.md": "# 2026-11-01\n\nDeployed the build server.\n\nFixed the flaky test.\n",
      "memory/2026-11-02.md": "# 2026-11-02\n\nBooked the flight to Lisbon.\n",
      "memory/notes/a.md": "# A\n\nOne note.\n",
    });
    const idx = openTestIndex(root, null);
    const truth = () => {
      const q = (sql: string) => rawDb(idx.store).prepare(sql).pluck().get() as number;
      const chunks = q(`SELECT count(*) FROM chunks`);
      return {
        files: q(`SELECT count(*) FROM files`),
        chunks,
        vectors: 0,
        pending: q(`SELECT count(*) FROM chunks WHERE vec_state = 0`),
        noVector: q(`SELECT count(*) FROM chunks WHERE vec_state = 2`),
        transcripts: q(`SELECT count(*) FROM files WHERE class = 'transcript'`),
        days: q(`SELECT count(DISTINCT date) FROM files WHERE date IS NOT NULL`),
      };
    };
    const mine = () => ({
      ...idx.store.counts(),
      transcripts: idx.store.countTranscriptFiles(),
      days: idx.store.memoryDays().days,
    });
    await idx.indexer.sync();
    expect(mine()).toEqual(truth());
    expect(mine()).toMatchObject({ files: 4, days: 2 });
    expect(idx.store.memoryDays().oldest).toBe("2026-11-01");

    writeFiles(root, {
      "memory/2026-11-02.md": "# 2026-11-02\n\nBooked the flight to Lisbon.\n\nAnd the hotel.\n\nAnd a car.\n",
    });
    rmSync(join(root, "memory/2026-11-01.md"));
    writeFiles(root, { "memory/notes/b.md": "# B\n\nAnother note.\n" });
    await idx.indexer.sync();
    expect(mine()).toEqual(truth());
    expect(mine()).toMatchObject({ files: 4, days: 1 });
    expect(idx.store.memoryDays().oldest).toBe("2026-11-02");
    idx.close();
  });
});
