import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmbeddingProvider } from "../src/embed/provider.js";
import { consolidate } from "../src/consolidate/run.js";
import { applyPromotions, promotionCandidates } from "../src/consolidate/promotion.js";
import { analyse, explainSupersession } from "../src/consolidate/supersession.js";
import { loadReports } from "../src/consolidate/report.js";
import { recall } from "../src/search/recall.js";
import { tinyProvider } from "./helpers/models.js";
import { openTestIndex, tempDir, writeFiles, type TestIndex } from "./helpers/workspace.js";
import { rawDb } from "./helpers/raw-db.js";

let provider: EmbeddingProvider;
beforeAll(async () => {
  provider = await tinyProvider();
}, 60_000);
afterAll(async () => {
  await provider?.close();
});

const FACT = "The staging database password rotates every quarter through the vault job.";

function workspace(): { root: string; idx: TestIndex } {
  const root = tempDir("cortexd-consolidate-");
  writeFiles(root, {
    "MEMORY.md": "# MEMORY\n\n- The user prefers short answers.\n",
    "memory/2026-11-01.md": `# 2026-11-01\n\n- ${FACT}\n\n- Lunch with the design team about the onboarding flow.\n`,
    "memory/2026-11-02.md": "# 2026-11-02\n\n- Deploys run on Fridays.\n",
    "memory/2026-11-10.md": `# 2026-11-10\n\n- ${FACT}\n\n- Reviewed the billing export for the finance team.\n`,
    "memory/2026-11-15.md": "# 2026-11-15\n\n- Deploys moved to Tuesdays.\n",
    "memory/2026-11-20.md": `# 2026-11-20\n\n- ${FACT}\n`,
  });
  const idx = openTestIndex(root, provider);
  return { root, idx };
}

const opts = { cacheMax: 100_000 };

describe("supersession heuristic", () => {
  it("same subject, different value → superseded, with a reason; same value or other subject → not", () => {
    const r = explainSupersession(analyse("- Deploys run on Fridays.")!, analyse("- Deploys moved to Tuesdays.")!);
    expect(r).toMatch(/deploy.*friday → tuesday/);
    expect(
      explainSupersession(analyse("- Deploys run on Fridays.")!, analyse("- Deploys are still on Fridays.")!),
    ).toBeNull();
    expect(
      explainSupersession(analyse("- Deploys run on Fridays.")!, analyse("- Lunch with the team on Tuesday.")!),
    ).toBeNull();
    expect(
      explainSupersession(analyse("- The API listens on port 8080.")!, analyse("- The API port is now 9090.")!),
    ).toMatch(/8080 → 9090/);
    expect(explainSupersession(analyse("- We like the blue theme.")!, analyse("- We like the red theme.")!)).toBeNull(); // no value word
    expect(
      explainSupersession(
        analyse("- Auth service listens on port 8080.")!,
        analyse("- Billing service listens on port 9090.")!,
      ),
    ).toBeNull(); // two subjects
    expect(explainSupersession(analyse("- Standup is on Monday.")!, analyse("- Standup is at 10:30.")!)).toBeNull(); // different kinds of value
  });
});

describe("consolidation (real index, tiny model)", () => {
  it("groups duplicates across daily logs: recall shows the newest once, with a count", async () => {
    const { idx } = workspace();
    await idx.indexer.sync();
    const before = await recall(idx.searcher, idx.store, { query: "staging database password vault", record: false });
    const beforeFact = before.memories.filter((m) => m.text.includes("staging database password"));
    expect(beforeFact.every((m) => m.duplicates === undefined)).toBe(true);
    const rep = await consolidate({ name: "t", root: idx.root, store: idx.store }, opts);
    expect(rep.duplicateGroups).toBe(1);
    expect(rep.duplicatesHidden).toBe(2);
    const after = await recall(idx.searcher, idx.store, { query: "staging database password vault", record: false });
    const fact = after.memories.filter((m) => m.text.includes("staging database password"));
    expect(fact).toHaveLength(1);
    expect(fact[0]!.path).toBe("memory/2026-11-20.md");
    expect(fact[0]!.duplicates).toBe(3);
    expect(after.context).toContain("(noted 3×)");
    idx.close();
  });

  it("prefers the current fact over a superseded one; includeHistory shows both, the old one marked", async () => {
    const { idx } = workspace();
    await idx.indexer.sync();
    const q = "when do deploys run";
    // Facts over time (src/facts) link the two at index time already: the older is left out before
    // any consolidation, and kept, marked, with includeHistory.
    const before = await recall(idx.searcher, idx.store, { query: q, record: false });
    expect(before.memories.filter((m) => /Deploys/.test(m.text)).map((m) => m.path)).toEqual(["memory/2026-11-15.md"]);
    const beforeHist = await recall(idx.searcher, idx.store, { query: q, record: false, includeHistory: true });
    expect(beforeHist.context).toMatch(/\[superseded 2026-11-15\] Deploys run on Fridays/);
    const rep = await consolidate({ name: "t", root: idx.root, store: idx.store }, opts);
    expect(rep.superseded).toBe(1);
    expect(rep.supersessionExamples[0]).toMatch(/2026-11-02\.md:1 → memory\/2026-11-15\.md:1/);
    const after = await recall(idx.searcher, idx.store, { query: q, record: false });
    const deploys = after.memories.filter((m) => /Deploys/.test(m.text));
    expect(deploys.map((m) => m.path)).toEqual(["memory/2026-11-15.md"]);
    const hist = await recall(idx.searcher, idx.store, { query: q, record: false, includeHistory: true });
    const old = hist.memories.find((m) => m.path === "memory/2026-11-02.md");
    expect(old?.supersededBy).toBe("memory/2026-11-15.md:1");
    expect(hist.memories.some((m) => m.path === "memory/2026-11-15.md")).toBe(true);
    // No file changed.
    expect(readFileSync(join(idx.root, "memory/2026-11-02.md"), "utf8")).toContain("Deploys run on Fridays.");
    idx.close();
  });

  it("a dry run reports but changes nothing; every run stores a report with timings", async () => {
    const { idx } = workspace();
    await idx.indexer.sync();
    const rep = await consolidate({ name: "t", root: idx.root, store: idx.store }, { ...opts, dryRun: true });
    expect(rep.duplicateGroups).toBe(1);
    expect(rep.superseded).toBe(1);
    expect((rawDb(idx.store).prepare(`SELECT count(*) AS n FROM dup_groups`).get() as { n: number }).n).toBe(0);
    expect((rawDb(idx.store).prepare(`SELECT count(*) AS n FROM supersessions`).get() as { n: number }).n).toBe(0);
    const full = await consolidate({ name: "t", root: idx.root, store: idx.store }, opts);
    expect(full.maintenance?.quickCheck).toBe("ok");
    expect(Object.keys(full.timings)).toEqual(
      expect.arrayContaining(["load", "similarity", "supersession", "maintenance"]),
    );
    const reports = loadReports(idx.store, 5);
    expect(reports.map((r) => r.dryRun)).toEqual([false, true]);
    idx.close();
  });

  it("promotion: ≥ 3 recalls from ≥ 3 queries → appended once to MEMORY.md after a backup; a second apply adds nothing", async () => {
    const { root, idx } = workspace();
    await idx.indexer.sync();
    await consolidate({ name: "t", root, store: idx.store }, opts);
    const queries = [
      "staging database password",
      "how does the vault job rotate passwords",
      "staging password rotation every quarter",
    ];
    for (const query of queries.slice(0, 2)) await recall(idx.searcher, idx.store, { query });
    expect(await promotionCandidates(idx.store, root)).toHaveLength(0); // 2 queries only
    await recall(idx.searcher, idx.store, { query: queries[2]! });
    const cands = await promotionCandidates(idx.store, root);
    const fact = cands.find((c) => c.text.includes("staging database password"));
    expect(fact).toBeDefined();
    expect(fact!.path).toBe("memory/2026-11-20.md"); // the newest of the duplicate group
    const original = readFileSync(join(root, "MEMORY.md"), "utf8");
    const r1 = await applyPromotions(idx.store, root);
    expect(r1.applied).toBe(cands.length);
    expect(r1.backup).toBeDefined();
    expect(readFileSync(r1.backup!, "utf8")).toBe(original);
    const after1 = readFileSync(join(root, "MEMORY.md"), "utf8");
    expect(after1.startsWith(original)).toBe(true);
    expect(after1).toMatch(/## Promoted \d{4}-\d{2}-\d{2}\n\n/);
    expect(after1).toContain(`- ${FACT}\n  <!-- promoted from memory/2026-11-20.md`);
    expect(after1).toContain("<!-- promoted from memory/2026-11-20.md:1-3");
    const r2 = await applyPromotions(idx.store, root);
    expect(r2.applied).toBe(0);
    expect(readFileSync(join(root, "MEMORY.md"), "utf8")).toBe(after1);
    expect(readdirSync(root).filter((f) => f.startsWith("MEMORY.md.bak-"))).toHaveLength(1);
    // The indexed MEMORY.md now holds the entry, and a re-index of the backup never happens (not a memory file).
    await idx.indexer.sync();
    expect(idx.store.getFile("MEMORY.md.bak-x")).toBeUndefined();
    expect(existsSync(join(root, "MEMORY.md"))).toBe(true);
    idx.close();
  });

  it("an entry already written in MEMORY.md by hand is not a candidate", async () => {
    const { root, idx } = workspace();
    writeFileSync(join(root, "MEMORY.md"), `# MEMORY\n\n- ${FACT}\n`);
    await idx.indexer.sync();
    for (const query of ["staging database password", "vault job rotation", "password every quarter"])
      await recall(idx.searcher, idx.store, { query, scope: "group" });
    const c = await promotionCandidates(idx.store, root);
    expect(c.filter((c) => c.text.includes("staging"))).toHaveLength(0);
    idx.close();
  });
});

describe("duplicate search at scale (LSH path)", () => {
  it("finds planted near-duplicates among 3,000 random entries, deterministically, and groups them newest-first without chaining", async () => {
    const { similarPairs, groupDuplicates } = await import("../src/consolidate/duplicates.js");
    const { mulberry32 } = await import("../src/util/prng.js");
    const r = mulberry32(1);
    const dims = 64;
    const rand = () => {
      const v = new Float32Array(dims);
      let n = 0;
      for (let i = 0; i < dims; i++) n += (v[i] = r() * 2 - 1) ** 2;
      for (let i = 0; i < dims; i++) v[i]! /= Math.sqrt(n);
      return v;
    };
    const entries = Array.from({ length: 3000 }, (_, i) => ({
      id: i,
      hash: i.toString(16).padStart(32, "0"),
      path: `memory/2026-${String(1 + (i % 12)).padStart(2, "0")}-01.md`,
      date: `2026-${String(1 + (i % 12)).padStart(2, "0")}-01`,
      startLine: 1,
      endLine: 3,
      ts: null,
      text: `entry ${i} words w${i} x${i}`,
      vector: rand() as Float32Array | null,
    }));
    // Plant 20 duplicates: entry 2i+1 ≈ entry 2i (same words, vector nudged), in another month's log.
    for (let k = 0; k < 20; k++) {
      const a = entries[k * 100]!;
      const b = entries[k * 100 + 1]!;
      b.text = a.text;
      const v = Float32Array.from(a.vector!, (x) => x + (r() - 0.5) * 0.02);
      let n = 0;
      for (const x of v) n += x * x;
      b.vector = v.map((x) => x / Math.sqrt(n));
    }
    const t0 = performance.now();
    const s1 = await similarPairs(entries);
    const ms = performance.now() - t0;
    const groups = await groupDuplicates(entries, s1.pairs);
    expect(groups).toHaveLength(20);
    for (const g of groups)
      expect(g.canonical).toBe(g.members.reduce((a, b) => (entries[a]!.date > entries[b]!.date ? a : b)));
    const s2 = await similarPairs(entries);
    expect(s2.pairs.length).toBe(s1.pairs.length);
    expect(ms).toBeLessThan(10_000);
  });
});
