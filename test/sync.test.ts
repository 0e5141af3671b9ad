import { renameSync, rmSync, utimesSync, writeFileSync, appendFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dumpIndex, openTestIndex, tempDir, writeFiles } from "./helpers/workspace.js";
import { rawDb } from "./helpers/raw-db.js";

function daily(n: number, paragraphs: string[]): string {
  return `# 2026-11-${String(n).padStart(2, "0")}\n\n${paragraphs.join("\n\n")}\n`;
}

const LONG = (topic: string, n: number) =>
  Array.from(
    { length: n },
    (_, i) => `- ${topic} item ${i}: the ${topic} work continued with detail number ${i} and notes.`,
  ).join("\n");

describe("incremental sync (keyword-only)", () => {
  it("indexes a workspace, then an unchanged re-sync reads nothing", async () => {
    const root = tempDir();
    writeFiles(root, {
      "MEMORY.md": "# Memory\n\n- Prefers TypeScript.\n- Uses PostgreSQL.\n",
      "memory/2026-11-01.md": daily(1, ["Deploy failed on the build server.", "Fixed by adding python3."]),
      "sessions/s.jsonl": `{"role":"user","content":"where are the invoices?"}\n{"role":"assistant","content":"In the billing schema."}\n`,
    });
    const idx = openTestIndex(root, null);
    const first = await idx.indexer.sync();
    expect(first).toMatchObject({ added: 3, changed: 0, removed: 0, unchanged: 0 });
    expect(first.chunksWritten).toBeGreaterThanOrEqual(3);
    const second = await idx.indexer.sync();
    expect(second).toMatchObject({ added: 0, changed: 0, removed: 0, unchanged: 3, chunksWritten: 0, embedded: 0 });
    const hits = await idx.searcher.search({ query: "invoices billing" });
    expect(hits.results[0]).toMatchObject({ path: "sessions/s.jsonl", source: "transcript", startLine: 1, endLine: 2 });
    expect(hits.mode).toBe("keyword");
    idx.close();
  });

  it("a touched file (same content, new mtime) is not re-chunked", async () => {
    const root = tempDir();
    writeFiles(root, { "memory/2026-11-02.md": daily(2, ["alpha beta"]) });
    const idx = openTestIndex(root, null);
    await idx.indexer.sync();
    const t = new Date(Date.now() + 5000);
    utimesSync(join(root, "memory/2026-11-02.md"), t, t);
    const r = await idx.indexer.sync();
    expect(r).toMatchObject({ unchanged: 1, changed: 0, chunksWritten: 0 });
    const r2 = await idx.indexer.sync();
    expect(r2.unchanged).toBe(1);
    idx.close();
  });

  it("an appended daily log rewrites only its tail chunks", async () => {
    const root = tempDir();
    const path = join(root, "memory/2026-11-03.md");
    writeFiles(root, { "memory/2026-11-03.md": daily(3, [LONG("billing", 60)]) });
    const idx = openTestIndex(root, null);
    const first = await idx.indexer.sync();
    expect(first.chunksWritten).toBeGreaterThan(3);
    const before = idx.store.chunksOfFile("memory/2026-11-03.md");
    appendFileSync(path, "\n## Later\n\n- A new decision about refunds.\n");
    const r = await idx.indexer.sync();
    expect(r.changed).toBe(1);
    expect(r.chunksWritten).toBeLessThanOrEqual(2);
    const after = idx.store.chunksOfFile("memory/2026-11-03.md");
    expect(after.slice(0, before.length - 1).map((c) => c.id)).toEqual(
      before.slice(0, before.length - 1).map((c) => c.id),
    );
    expect((await idx.searcher.search({ query: "refunds decision" })).results[0]?.path).toBe("memory/2026-11-03.md");
    idx.close();
  });

  it("delete removes every trace: rows, FTS entries, filename index", async () => {
    const root = tempDir();
    writeFiles(root, { "memory/2026-11-04.md": daily(4, ["zanzibar holiday plans"]), "MEMORY.md": "- keep me" });
    const idx = openTestIndex(root, null);
    await idx.indexer.sync();
    expect((await idx.searcher.search({ query: "zanzibar" })).results).toHaveLength(1);
    rmSync(join(root, "memory/2026-11-04.md"));
    const r = await idx.indexer.sync();
    expect(r).toMatchObject({ removed: 1 });
    expect((await idx.searcher.search({ query: "zanzibar" })).results).toHaveLength(0);
    const db = rawDb(idx.store);
    expect(db.prepare(`SELECT count(*) AS n FROM files WHERE path LIKE 'memory/%'`).get()).toEqual({ n: 0 });
    expect(db.prepare(`SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'zanzibar'`).get()).toEqual({
      n: 0,
    });
    expect(db.prepare(`SELECT count(*) AS n FROM files_fts WHERE files_fts MATCH '"2026"'`).get()).toEqual({ n: 0 });
    dumpIndex(db); // integrity-check passes
    idx.close();
  });

  it("rename keeps the chunks (no re-chunking) and the index equals a clean build", async () => {
    const root = tempDir();
    writeFiles(root, { "memory/draft.md": `# Draft\n\n${LONG("rename", 30)}\n` });
    const idx = openTestIndex(root, null);
    await idx.indexer.sync();
    const ids = idx.store.chunksOfFile("memory/draft.md").map((c) => c.id);
    renameSync(join(root, "memory/draft.md"), join(root, "memory/final.md"));
    const r = await idx.indexer.sync();
    expect(r).toMatchObject({ renamed: 1, added: 0, removed: 0, chunksWritten: 0 });
    expect(idx.store.chunksOfFile("memory/final.md").map((c) => c.id)).toEqual(ids);
    const clean = openTestIndex(root, null);
    await clean.indexer.sync();
    expect(dumpIndex(rawDb(idx.store))).toEqual(dumpIndex(rawDb(clean.store)));
    idx.close();
    clean.close();
  });

  it("skips binary and oversized files with a reason, and counts malformed transcript lines", async () => {
    const root = tempDir();
    writeFiles(root, {
      "memory/ok.md": "fine text",
      "sessions/t.jsonl": `{"role":"user","content":"hello there friend"}\nnot json\n{"role":"assistant","content":"hi, how can I help"}\n[1,2]\n`,
    });
    writeFileSync(join(root, "memory/bin.md"), Buffer.from([0x89, 0x50, 0x00, 0x01, 0x02]));
    const idx = openTestIndex(root, null);
    const r = await idx.indexer.sync();
    expect(r.skipped).toContainEqual({ path: "memory/bin.md", kind: "binary", reason: "binary content (NUL bytes)" });
    expect(r.malformedLines).toBe(2);
    expect(r.added).toBe(2);
    idx.close();
  });

  it("any query string is valid: FTS syntax, quotes, unicode, empty, huge", async () => {
    const root = tempDir();
    writeFiles(root, { "memory/x.md": 'C++ and "quotes" AND NOT near(x) — émigré café 記憶エンジン works' });
    const idx = openTestIndex(root, null);
    await idx.indexer.sync();
    for (const q of [
      '"',
      "AND OR NOT",
      "near(x, 2)",
      "*",
      "c++",
      "col:value",
      "'; DROP TABLE files; --",
      "",
      "   ",
      "🙂",
      "x".repeat(100_000),
      "^start -minus",
    ]) {
      const r = await idx.searcher.search({ query: q });
      expect(Array.isArray(r.results)).toBe(true);
    }
    expect((await idx.searcher.search({ query: "cafe emigre" })).results).toHaveLength(1);
    expect((await idx.searcher.search({ query: "エンジン" })).results).toHaveLength(1);
    expect((await idx.searcher.search({ query: "記憶" })).results).toHaveLength(1);
    idx.close();
  });
});

describe("incremental transcripts", () => {
  const line = (i: number, role = i % 2 ? "assistant" : "user") =>
    JSON.stringify({
      type: "message",
      timestamp: 1_700_000_000_000 + i * 60_000,
      message: {
        role,
        content: [
          {
            type: "text",
            text: `message ${i} about topic${i % 7} with some words to fill the chunk budget up ${"lorem ipsum ".repeat(20)}`,
          },
        ],
      },
    }) + "\n";

  it("reads only what was appended, and the result equals a clean build", async () => {
    const root = tempDir();
    writeFiles(root, { "sessions/t.jsonl": Array.from({ length: 120 }, (_, i) => line(i)).join("") });
    const idx = openTestIndex(root, null);
    await idx.indexer.sync();
    const path = join(root, "sessions/t.jsonl");
    for (let round = 0; round < 3; round++) {
      appendFileSync(path, Array.from({ length: 7 }, (_, i) => line(120 + round * 7 + i)).join(""));
      const r = await idx.indexer.sync();
      expect(r).toMatchObject({ changed: 1, appended: 1 });
    }
    appendFileSync(path, '{"type":"message","message":{"role":"user","content":"half a li'); // a writer mid-line
    const half = await idx.indexer.sync();
    expect(half.appended).toBe(1);
    appendFileSync(path, 'ne, finished later"}}\n');
    await idx.indexer.sync();
    expect((await idx.searcher.search({ query: "finished later" })).results[0]?.path).toBe("sessions/t.jsonl");
    const clean = openTestIndex(root, null);
    await clean.indexer.sync();
    expect(dumpIndex(rawDb(idx.store))).toEqual(dumpIndex(rawDb(clean.store)));
    expect(idx.store.getFile("sessions/t.jsonl")!.malformed).toBe(0);
    idx.close();
    clean.close();
  });

  it("a rewritten (not appended) transcript is re-read whole", async () => {
    const root = tempDir();
    writeFiles(root, { "sessions/t.jsonl": Array.from({ length: 30 }, (_, i) => line(i)).join("") });
    const idx = openTestIndex(root, null);
    await idx.indexer.sync();
    writeFiles(root, { "sessions/t.jsonl": Array.from({ length: 40 }, (_, i) => line(i + 1000)).join("") });
    const r = await idx.indexer.sync();
    expect(r).toMatchObject({ changed: 1, appended: 0 });
    const clean = openTestIndex(root, null);
    await clean.indexer.sync();
    expect(dumpIndex(rawDb(idx.store))).toEqual(dumpIndex(rawDb(clean.store)));
    idx.close();
    clean.close();
  });
});
