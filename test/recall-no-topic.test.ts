/**
 * A prompt without a topic word ("ok, do it", "what is it?") in keyword-only recall: no memory can
 * match it, so recall answers nothing without searching (at a million chunks the search of such a
 * prompt ranks lists holding nearly every chunk). The same prompt with a date window, with
 * relevance "off", or with explain still searches and answers as before. With vectors, only the
 * vector leg can find it a memory: the keyword leg (lists of nearly every chunk) is not run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RecallSchema } from "../src/config/schema.js";
import { createStaticBertProvider, type StaticBertProvider } from "../src/embed/builtin/fast-provider.js";
import { recall } from "../src/search/recall.js";
import { ensureTinyTestModel } from "./fixtures/embed/tiny-model.js";
import { openTestIndex, tempDir, writeFiles, type TestIndex } from "./helpers/workspace.js";

const DAYS: Record<string, string> = Object.fromEntries(
  Array.from({ length: 12 }, (_, i) => {
    const d = `2026-11-${String(i + 10).padStart(2, "0")}`;
    return [
      `memory/${d}.md`,
      `# ${d}\n\n- 09:00 What is it that we did: we moved the billing queue to the new host (day ${i}).\n` +
        `- 12:00 It is done, and it was about the upload limits of the warehouse import.\n`,
    ];
  }),
);

describe("recall of a prompt without a topic word (keyword-only)", () => {
  let t: TestIndex;
  beforeAll(async () => {
    const root = tempDir();
    writeFiles(root, DAYS);
    t = openTestIndex(root, null);
    await t.indexer.sync();
  });
  afterAll(() => t?.close());
  const ask = (query: string, more: Partial<Parameters<typeof recall>[2]> = {}) =>
    recall(t.searcher, t.store, { query, referenceDate: "2026-11-22", record: false, timings: true, ...more });

  it("answers nothing, without running the search", async () => {
    for (const query of ["ok, do it", "what is it?", "we they is", "yes thanks"]) {
      const res = await ask(query);
      expect(res.memories, query).toEqual([]);
      expect(res.timings?.keyword, query).toBeUndefined();
    }
  });

  it("still searches for a prompt with a topic word, a date window, relevance off or explain", async () => {
    expect((await ask("what is it with the billing queue?")).memories.length).toBeGreaterThan(0);
    const dated = await ask("what is it from yesterday?");
    expect(dated.timings?.keyword).toBeDefined();
    expect(dated.memories.some((m) => m.path.endsWith("2026-11-21.md"))).toBe(true);
    const off = await ask("what is it?", { config: RecallSchema.parse({ relevance: "off" }) });
    expect(off.memories.length).toBeGreaterThan(0);
    const explained = await ask("what is it?", { explain: true });
    expect(explained.memories).toEqual([]);
    expect(explained.explain).toBeDefined();
  });
});

describe("recall of a prompt without a topic word, with vectors", () => {
  let t: TestIndex;
  let provider: StaticBertProvider;
  beforeAll(async () => {
    provider = await createStaticBertProvider(await ensureTinyTestModel());
    const root = tempDir();
    writeFiles(root, DAYS);
    t = openTestIndex(root, provider);
    await t.indexer.sync();
  });
  afterAll(async () => {
    t?.close();
    await provider?.close();
  });
  const ask = (query: string, more: Partial<Parameters<typeof recall>[2]> = {}) =>
    recall(t.searcher, t.store, { query, referenceDate: "2026-11-22", record: false, explain: true, ...more });

  it("searches with the vector leg only: the keyword leg can give it no evidence", async () => {
    for (const query of ["ok, do it", "what is it?", "we they is"]) {
      const res = await ask(query);
      expect(res.explain?.search, query).toBe("vector");
    }
  });

  it("runs both legs for a topic word, a date window or relevance off", async () => {
    expect((await ask("what is it with the billing queue?")).explain?.search).toBe("hybrid");
    expect((await ask("what is it from yesterday?")).explain?.search).toBe("hybrid");
    const off = await ask("what is it?", { config: RecallSchema.parse({ relevance: "off" }) });
    expect(off.explain?.search).toBe("hybrid");
    expect(off.memories.length).toBeGreaterThan(0);
  });
});
