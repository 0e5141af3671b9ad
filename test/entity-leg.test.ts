/**
 * Entity-aware search (search/entity-leg.ts): the entities a prompt names, with their aliases in the
 * workspace ("Alice" ~ "Alice Chen"), pull in the memories naming them and, one hop further, those
 * naming the entities they co-occur with — even a memory sharing no word with the prompt. An
 * unrelated prompt stays empty. Real files, a real index (keyword-only: deterministic ranking).
 */
import { afterEach, describe, expect, it } from "vitest";
import { recall } from "../src/search/recall.js";
import { entityLeg } from "../src/search/entity-leg.js";
import { topEntities } from "../src/search/entity-names.js";
import { openTestIndex, tempDir, writeFiles, type TestIndex } from "./helpers/workspace.js";
import { entityFiles } from "./helpers/entity-fixture.js";

const open: TestIndex[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

async function indexed(): Promise<TestIndex> {
  const root = tempDir();
  writeFiles(root, entityFiles());
  const t = openTestIndex(root, null);
  open.push(t);
  await t.indexer.sync();
  return t;
}

describe("entity-aware search", () => {
  it("merges an alias: the prompt's first name finds the full name's memories", async () => {
    const t = await indexed();
    const leg = entityLeg(t.store, "What is Alice up to?");
    expect(leg.prompt).toContain("Alice Chen");
  });

  it("pulls a memory that shares no word with the prompt through a co-occurring entity, and explains it", async () => {
    const t = await indexed();
    const res = await t.searcher.search({ query: "What is Alice up to?", explain: true, limit: 10 });
    expect(res.entities?.prompt).toContain("Alice Chen");
    expect(res.entities?.linked).toContain("Project Falcon");
    const lisbon = res.results.find((r) => r.path === "memory/2026-03-16.md");
    expect(lisbon, JSON.stringify(res.results.map((r) => r.path))).toBeDefined();
    expect(lisbon!.explain?.entity).toBeGreaterThan(0);
    // The hit says which entities it names.
    expect(lisbon!.facts?.entities).toContain("Project Falcon");
  });

  it("follows a name written after an earlier request (a request's reading of the prompt's entities is its own)", async () => {
    const t = await indexed();
    const query = "What is Zofia Brandt working on?";
    const before = await t.searcher.search({ query, explain: true, limit: 10 });
    expect(before.entities?.prompt ?? []).not.toContain("Zofia Brandt");
    writeFiles(t.root, {
      "memory/2026-03-20.md": "# 2026-03-20\n\n- Zofia Brandt started on the billing-api migration with Alice Chen.\n",
    });
    await t.indexer.sync();
    const after = await t.searcher.search({ query, explain: true, limit: 10 });
    expect(after.entities?.prompt).toContain("Zofia Brandt");
    const out = await recall(t.searcher, t.store, { query, record: false });
    expect(out.context).toContain("Zofia Brandt started on the billing-api migration");
  });

  it("keeps an unrelated prompt empty", async () => {
    const t = await indexed();
    const out = await recall(t.searcher, t.store, { query: "How do I configure a VPN on my router?", record: false });
    expect(out.memory_count).toBe(0);
    expect(out.context).toBe("");
    expect(entityLeg(t.store, "How do I configure a VPN on my router?").chunks.size).toBe(0);
  });

  it("lists the top entities of the workspace", async () => {
    const t = await indexed();
    const top = topEntities(t.store.entities, 5);
    expect(top.map((e) => e.name)).toContain("Project Falcon");
    // "Alice" is an alias of "Alice Chen" (the only longer name starting with it): one entry.
    expect(top.find((e) => e.name === "Alice Chen")?.aliases).toEqual(["Alice"]);
    expect(top.some((e) => e.name === "Alice")).toBe(false);
    // Common phrases ("the evening cycling") are no entities of the list.
    expect(top.every((e) => /^\p{Lu}/u.test(e.name))).toBe(true);
  });
});

describe("entity-aware search in a narrower scope", () => {
  it("does not follow entities for a scoped search (co-occurrence would be read from memories it may not see)", async () => {
    const t = await indexed();
    const res = await t.searcher.search({ query: "What is Alice up to?", explain: true, limit: 10, visible: ["open"] });
    expect(res.entities).toBeUndefined();
    expect(res.results.every((r) => r.explain?.entity === undefined)).toBe(true);
  });
});
