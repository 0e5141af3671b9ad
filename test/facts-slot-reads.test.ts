/**
 * The slot rows one prompt reads (FactsRepo.slotsOf, search/recall-facts.ts): only the slots of the
 * prompt's entities in which a statement was superseded; a slot of restatements of one value is not
 * read, and the prompt's entities still show in explain. Real files, a real index (keyword-only).
 */
import { afterEach, describe, expect, it } from "vitest";
import { recall } from "../src/search/recall.js";
import { promptEntityKeys } from "../src/search/recall-facts.js";
import { openTestIndex, tempDir, writeFiles, type TestIndex } from "./helpers/workspace.js";

const open: TestIndex[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

const day = (i: number) => new Date(Date.UTC(2026, 2, 1) + i * 86_400_000).toISOString().slice(0, 10);

describe("slot rows per prompt", () => {
  it("reads the slots that changed, not the restatements, and keeps the prompt's entities", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++)
      files[`memory/${day(i)}.md`] =
        `# ${day(i)}\n\n- 09:10 Priya reports to Helen Park.\n` +
        (i === 10 ? "- 10:00 The ledger job runs on node-7.\n" : "") +
        (i === 20 ? "- 11:00 Moved the ledger job from node-7 to node-12.\n" : "");
    const root = tempDir();
    writeFiles(root, files);
    const t = openTestIndex(root, null);
    open.push(t);
    await t.indexer.sync();
    const entities = t.store.facts.slotEntities(
      promptEntityKeys("Who does Priya report to, and where does the ledger job run?"),
    );
    expect(entities).toEqual(expect.arrayContaining(["priya", "ledger job"]));
    const rows = t.store.facts.slotsOf(entities);
    // The ledger job's host changed: its slot is read. Priya's 30 restatements of one fact are not.
    expect(rows.some((r) => r.entity === "ledger job" && r.supersededBy !== null)).toBe(true);
    expect(rows.filter((r) => r.entity === "priya")).toEqual([]);
    const res = await recall(t.searcher, t.store, {
      query: "Who does Priya report to, and where does the ledger job run?",
      record: false,
      explain: true,
      referenceDate: "2026-04-15",
    });
    expect(res.explain?.facts?.entities).toEqual(expect.arrayContaining(["priya", "ledger job"]));
    expect(res.context).toContain("node-12");
  });
});
