/**
 * A read request sees one state of the index (index/db/read-snapshot.ts): another connection's
 * commit during the request — here while the query is embedded — does not leave it mixing the
 * state it started on with the new one. And the copy registry hears another connection's commit
 * when a request opens its snapshot, whether or not the copy is used (index/db/copies.ts).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { EmbeddingProvider } from "../src/embed/provider.js";
import { SearchSchema } from "../src/config/schema.js";
import { dataVersionOf } from "../src/index/db/db-generation.js";
import { openDatabase } from "../src/index/db/db.js";
import { IndexStore } from "../src/index/repos/store.js";
import { Indexer } from "../src/indexer/sync.js";
import { Searcher } from "../src/search/searcher.js";
import { recall } from "../src/search/recall.js";
import { builtinProvider } from "./helpers/models.js";
import { openTestIndex, syncFromAnotherConnection, tempDir, writeFiles, type TestIndex } from "./helpers/workspace.js";

const open: TestIndex[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

const BEFORE = "- The zebra Ziggy lives at the Nairobi sanctuary in Kenya.\n";
/** The memory after the other connection's write: the zebra line moved below other notes (other chunks). */
const AFTER = [
  ...Array.from({ length: 12 }, (_, i) => `- Watered the tomatoes, swept the porch and sorted the mail (note ${i}).`),
  "- The zebra Ziggy moved to the Serengeti reserve in Tanzania.",
  "",
].join("\n");

/** The provider, running `during` (once) when it is first asked to embed `query`: a write lands mid-request. */
function writingDuring(
  p: EmbeddingProvider,
  query: string,
  during: () => Promise<void>,
): EmbeddingProvider & { asked: number } {
  let pending: (() => Promise<void>) | null = during;
  const out = Object.assign(Object.create(p) as EmbeddingProvider, { asked: 0 });
  const embed = async (texts: readonly string[]) => {
    if (texts.includes(query)) {
      out.asked++;
      const run = pending;
      pending = null;
      if (run) await run();
    }
    return p.embedBatch(texts);
  };
  return Object.assign(out, { embedBatch: embed, embedQueries: embed });
}

async function indexed(provider: EmbeddingProvider): Promise<TestIndex> {
  const root = tempDir();
  writeFiles(root, {
    "memory/2026-01-01.md": `# 2026-01-01\n\n${BEFORE}`,
    "memory/2026-01-02.md": "# 2026-01-02\n\n- Bought groceries and fixed the bike chain.\n",
  });
  const t = openTestIndex(root, provider);
  open.push(t);
  await t.indexer.sync();
  return t;
}

describe("a read request's snapshot", () => {
  it("a search and a recall never mix the state they started on with another connection's commit during them", async () => {
    const base = await builtinProvider();
    for (const kind of ["search", "recall"] as const) {
      const query = kind === "search" ? "Where does the zebra Ziggy live?" : "Where does Ziggy the zebra live now?";
      const at: { t?: TestIndex } = {};
      // The other connection rewrites the memory while the query is embedded (after the keyword leg).
      const provider = writingDuring(base, query, async () => {
        writeFileSync(join(at.t!.root, "memory/2026-01-01.md"), `# 2026-01-01\n\n${AFTER}`);
        await syncFromAnotherConnection(at.t!.root, at.t!.dbPath, { provider: base });
      });
      const t = (at.t = await indexed(provider));
      // A daemon's copies are loaded by the queries before (the vectors, the chunk metadata).
      await t.searcher.search({ query: "zebra sanctuary", limit: 5 });
      const texts =
        kind === "search"
          ? (await t.searcher.search({ query, limit: 5, fullText: true })).results.map((r) => r.text ?? "")
          : (await recall(t.searcher, t.store, { query, record: false })).memories.map((m) => m.text);
      const zebra = texts.filter((x) => x.includes("Ziggy"));
      // One state: the memory as it was, or as it is now — never lost between the two, nor a
      // chunk of the new state ranked for what the old one said.
      expect(zebra, `${kind}: ${JSON.stringify(texts)}`).toHaveLength(1);
      expect(texts[0], kind).toContain("Ziggy");
      expect(provider.asked, kind).toBe(2); // run again on the new state
      expect(zebra[0], kind).toContain("Tanzania");
    }
  });

  it("runs a request once when nothing changes under it", async () => {
    const base = await builtinProvider();
    const query = "Where does the zebra Ziggy live?";
    const provider = writingDuring(base, query, async () => {});
    const t = await indexed(provider);
    const res = await t.searcher.search({ query, limit: 5 });
    expect(res.results[0]?.snippet).toContain("Kenya");
    expect(provider.asked).toBe(1);
    const out = await recall(t.searcher, t.store, { query, record: true });
    expect(out.memories.map((m) => m.text).join(" ")).toContain("Kenya");
    expect(provider.asked).toBe(2);
  });
});

describe("the data version a request reads", () => {
  it("is read when its snapshot opens and when it ends: its code between awaits answers the snapshot's", async () => {
    const provider = await builtinProvider();
    const root = tempDir();
    writeFiles(root, {
      "memory/2026-01-01.md": `# 2026-01-01\n\n${BEFORE}`,
      "memory/2026-01-02.md": "# 2026-01-02\n\n- Bought groceries and fixed the bike chain.\n",
    });
    const opened = openDatabase(join(tempDir(), "index.sqlite"));
    const store = new IndexStore(opened, "test");
    try {
      await new Indexer({ store, target: { root }, provider, chunking: { maxTokens: 400, overlapTokens: 80 } }).sync();
      const searcher = new Searcher({ store, provider, config: SearchSchema.parse({}) });
      // A daemon's copies are loaded by the requests before (the vectors, the chunk metadata, the passage vectors).
      await recall(searcher, store, { query: "zebra sanctuary", record: false });
      const version = dataVersionOf(opened.db);
      const fresh = version.fresh.bind(version);
      let reads = 0;
      version.fresh = () => (reads++, fresh());
      await searcher.search({ query: "Where does the zebra Ziggy live?", limit: 5 });
      expect(reads).toBe(2);
      reads = 0;
      const out = await recall(searcher, store, { query: "Where does Ziggy the zebra live now?", record: false });
      expect(out.memories.map((m) => m.text).join(" ")).toContain("Kenya");
      expect(reads).toBe(2);
    } finally {
      store.close();
    }
  });
});

describe("what a request keeps", () => {
  it("is read once per snapshot, and read again by the next request after a write", async () => {
    const base = await builtinProvider();
    const t = await indexed(base);
    let reads = 0;
    const count = () => (reads++, t.store.counts().chunks);
    const first = t.store.readSnapshot();
    const n = first.keep("chunks", count);
    expect(first.keep("chunks", count)).toBe(n);
    expect(reads).toBe(1);
    writeFileSync(join(t.root, "memory/2026-01-03.md"), "# 2026-01-03\n\n- Repaired the fence.\n");
    await t.indexer.sync();
    expect(t.store.readSnapshot().keep("chunks", count)).toBe(n + 1);
    expect(reads).toBe(2);
  });
});

describe("the copy registry", () => {
  it("pushes another connection's commit to every copy when a request opens its snapshot, used or not", async () => {
    const base = await builtinProvider();
    const t = await indexed(base);
    let heard = 0;
    t.store.registerCopy({ name: "test copy", onRollback: () => {}, onCommit: () => heard++ });
    t.store.readSnapshot();
    expect(heard).toBe(0);
    writeFileSync(join(t.root, "memory/2026-01-01.md"), `# 2026-01-01\n\n${AFTER}`);
    await syncFromAnotherConnection(t.root, t.dbPath, { provider: base });
    expect(heard).toBe(0); // nothing of this connection read since
    t.store.readSnapshot();
    expect(heard).toBe(1);
    t.store.readSnapshot(); // no commit since: nothing to hear
    expect(heard).toBe(1);
    writeFileSync(join(t.root, "memory/2026-01-02.md"), "# 2026-01-02\n\n- Repaired the fence.\n");
    await syncFromAnotherConnection(t.root, t.dbPath, { provider: base });
    t.store.checkCommits(); // the daemon's heartbeat asks too, between requests
    expect(heard).toBe(2);
  });
});
