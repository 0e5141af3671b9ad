import Database from "better-sqlite3";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildKeywordQuery, buildPathQuery, buildPrefixQuery } from "../src/search/keyword/query.js";
import { openTestIndex, tempDir, writeFiles, type TestIndex } from "./helpers/workspace.js";

/**
 * Any query string is either searched or yields nothing: FTS5 operators, quotes, column filters,
 * NUL, lone surrogates, 100 KB. The built MATCH expression is always valid FTS5 and never
 * interprets the user's operators.
 */

const FTS_BITS = [
  '"',
  "'",
  "*",
  "^",
  "-",
  "+",
  ":",
  "(",
  ")",
  "{",
  "}",
  "NEAR",
  "NEAR/2",
  "AND",
  "OR",
  "NOT",
  "text:",
  "path:",
  "\0",
  "\ud800",
  "\udfff",
  "🦩",
  "記憶",
  " ",
  "\n",
  "\t",
  "\u200b",
  "\uFEFF",
  "e\u0301",
];
/** Strings made of FTS5 syntax, odd code points and words, in any order. */
const nasty = fc.oneof(
  fc.string({ unit: "binary", maxLength: 200 }),
  fc
    .array(
      fc.oneof(
        fc.constantFrom(...FTS_BITS),
        fc.string({ unit: "grapheme", maxLength: 8 }),
        fc.constantFrom("heron", "deploy", "café", "x"),
      ),
      { maxLength: 40 },
    )
    .map((a) => a.join("")),
);

describe("keyword query building", () => {
  const db = new Database(":memory:");
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(text, path, tokenize = 'unicode61 remove_diacritics 2')`);
  db.prepare(`INSERT INTO t(text, path) VALUES (?, ?)`).run("the heron deploy NEAR café AND OR NOT", "memory/x.md");
  const match = db.prepare(`SELECT rowid FROM t WHERE t MATCH ? ORDER BY rank LIMIT 5`);

  it("every built expression is valid FTS5, with each term quoted (no operator of the user's survives)", () => {
    fc.assert(
      fc.property(nasty, (q) => {
        for (const expr of [
          buildKeywordQuery(q).match,
          buildKeywordQuery(q, { keepStopWords: true }).match,
          buildPathQuery(q),
          buildPrefixQuery(buildKeywordQuery(q).terms),
        ]) {
          if (expr === null) continue;
          expect(() => match.all(expr), `${JSON.stringify(q)} → ${expr}`).not.toThrow();
          // Outside quoted phrases only OR and the prefix star appear.
          const outside = expr.replace(/"(?:[^"]|"")*"/g, "");
          expect(outside.replace(/ OR |\*/g, "").trim(), expr).toBe("");
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("FTS5 operators in a query are searched as words, not obeyed", () => {
    expect(buildKeywordQuery("NEAR(heron deploy)").match).toBe('"near" OR "heron" OR "deploy"');
    expect(buildKeywordQuery('text:heron -deploy ^café "x').match).toBe(
      '"text" OR "heron" OR "deploy" OR "café" OR "x"',
    );
    expect(buildKeywordQuery("*").match).toBeNull();
    expect(buildKeywordQuery("").match).toBeNull();
    expect(buildKeywordQuery("\0\ud800").match).toBeNull();
  });

  it("a 100 KB query is capped to 64 terms and built quickly", () => {
    const q = Array.from({ length: 15_000 }, (_, i) => `w${i}`)
      .join(" ")
      .slice(0, 100_000);
    const t0 = performance.now();
    const k = buildKeywordQuery(q);
    expect(performance.now() - t0).toBeLessThan(500);
    expect(k.terms).toHaveLength(64);
    expect(() => match.all(k.match!)).not.toThrow();
  });
});

describe("search with any query string (real index)", () => {
  let idx: TestIndex;
  beforeAll(async () => {
    const root = tempDir();
    writeFiles(root, {
      "MEMORY.md": "- The heron project deploys on Tuesdays.\n",
      "memory/2026-01-05.md":
        '# 2026-01-05\n\n- C++ and "quotes" AND NOT near(x) — émigré café 記憶エンジン works\n- text:column filters are just words here\n',
    });
    idx = openTestIndex(root, null);
    await idx.indexer.sync();
  });
  afterAll(() => idx.close());

  it("valid results (or none) for arbitrary Unicode, FTS5 syntax, NUL, lone surrogates", async () => {
    await fc.assert(
      fc.asyncProperty(nasty, async (q) => {
        const r = await idx.searcher.search({ query: q, explain: true });
        expect(Array.isArray(r.results)).toBe(true);
        for (const h of r.results) {
          expect(Number.isFinite(h.score)).toBe(true);
          expect(typeof h.snippet).toBe("string");
        }
        expect(() => JSON.stringify(r)).not.toThrow();
      }),
      { numRuns: 500 },
    );
  });

  it("empty, whitespace, 100 KB, and operator-only queries", async () => {
    for (const q of [
      "",
      "   ",
      "\0",
      "\ud800\udc00\ud800",
      "x".repeat(100_000),
      "heron ".repeat(16_000).slice(0, 100_000),
      '""""',
      "NEAR/3",
      "AND OR NOT",
      "text:",
      "*^-+:",
    ]) {
      const t0 = performance.now();
      const r = await idx.searcher.search({ query: q });
      expect(Array.isArray(r.results), JSON.stringify(q.slice(0, 20))).toBe(true);
      expect(performance.now() - t0).toBeLessThan(2000);
    }
    expect((await idx.searcher.search({ query: "heron ".repeat(16_000).slice(0, 100_000) })).results[0]!.path).toBe(
      "MEMORY.md",
    );
    expect((await idx.searcher.search({ query: "text:column" })).results[0]!.path).toBe("memory/2026-01-05.md");
    expect((await idx.searcher.search({ query: 'NEAR("heron" deploys)' })).results[0]!.path).toBe("MEMORY.md");
  });
});
