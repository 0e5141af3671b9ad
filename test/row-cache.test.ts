/**
 * The rows a search reads again come from memory (index/repos/row-cache.ts): chunk bodies and passage
 * blobs. What a search gets must always be what the table holds now: after this connection's
 * writes, another connection's commits, a rolled-back write and a model change.
 */
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStaticBertProvider, type StaticBertProvider } from "../src/embed/builtin/fast-provider.js";
import { RowCache, stringBytes } from "../src/index/repos/row-cache.js";
import type { IndexStore } from "../src/index/repos/store.js";
import { ensureTinyTestModel } from "./fixtures/embed/tiny-model.js";
import { rawDb } from "./helpers/raw-db.js";
import { indexedWorkspace, syncFromAnotherConnection, tempDir } from "./helpers/workspace.js";

let provider: StaticBertProvider;
beforeAll(async () => {
  provider = await createStaticBertProvider(await ensureTinyTestModel());
});
afterAll(async () => {
  await provider?.close();
});

const WORDS = ["deploy", "kafka", "budget", "garden", "retro", "invoice", "latency", "backup", "kiwi", "sprint"];

function randomText(rnd: () => number, lines: number): string {
  const line = () => Array.from({ length: 3 + Math.floor(rnd() * 8) }, () => WORDS[Math.floor(rnd() * 10)]).join(" ");
  return `# ${line()}\n\n${Array.from({ length: lines }, () => `- ${line()}`).join("\n")}\n`;
}

function tableBodies(store: IndexStore): Map<number, { text: string; hash: string }> {
  const rows = rawDb(store).prepare(`SELECT id, text, lower(hex(hash)) AS hash FROM chunks`).all() as {
    id: number;
    text: string;
    hash: string;
  }[];
  return new Map(rows.map((r) => [r.id, { text: r.text, hash: r.hash }]));
}

function tableBlobs(store: IndexStore): Map<number, Buffer> {
  const rows = rawDb(store).prepare(`SELECT id, vecs FROM passage_vectors`).raw().all() as [number, Buffer][];
  return new Map(rows);
}

/** What the store answers for every id the table has or had (deleted ids must be left out). */
function expectAsTable(store: IndexStore, ids: readonly number[]): void {
  const bodies = tableBodies(store);
  const got = store.chunkBodies(ids);
  expect(new Map([...got].map(([id, b]) => [id, { text: b.text, hash: b.hash }]))).toEqual(
    new Map(ids.filter((id) => bodies.has(id)).map((id) => [id, bodies.get(id)!])),
  );
  const blobs = tableBlobs(store);
  const gotBlobs = store.vectors.passages.byIds(ids);
  expect([...gotBlobs.keys()].sort((a, b) => a - b)).toEqual(ids.filter((id) => blobs.has(id)));
  for (const [id, b] of gotBlobs) expect(b.equals(blobs.get(id)!)).toBe(true);
}

describe("rows read again come from memory, and are what the table holds", () => {
  it("after edits, renames and deletions synced here and by another connection", async () => {
    let s = 17;
    const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
    const files: Record<string, string> = {};
    for (let i = 0; i < 8; i++) files[`memory/notes/n${i}.md`] = randomText(rnd, 4 + Math.floor(rnd() * 30));
    const opts = { provider, chunking: { maxTokens: 60, overlapTokens: 10 } };
    const { root, dbPath, store, indexer } = await indexedWorkspace(files, opts);
    const seen = new Set<number>();
    const everyId = () => {
      for (const id of tableBodies(store).keys()) seen.add(id);
      return [...seen].sort((a, b) => a - b).concat([seen.size + 1000]);
    };
    expectAsTable(store, everyId()); // fills the caches
    expectAsTable(store, everyId()); // from them
    for (let round = 0; round < 12; round++) {
      const i = Math.floor(rnd() * 8);
      const path = join(root, `memory/notes/n${i}.md`);
      const what = round % 4;
      if (what === 0) writeFileSync(path, randomText(rnd, 2 + Math.floor(rnd() * 30)));
      else if (what === 1) rmSync(path, { force: true });
      else if (what === 2) writeFileSync(join(root, `memory/notes/n${i}.md`), randomText(rnd, 1));
      else
        try {
          renameSync(path, join(root, `memory/notes/m${round}.md`));
        } catch {
          writeFileSync(path, randomText(rnd, 5));
        }
      // Even rounds: this connection syncs; odd ones: another connection (as another process would).
      if (round % 2 === 0) await indexer.sync();
      else await syncFromAnotherConnection(root, dbPath, opts);
      expectAsTable(store, everyId());
    }
    store.close();
  });

  it("a write rolled back leaves no trace; the vectors re-done for another model are read anew", async () => {
    let s = 5;
    const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
    const { store } = await indexedWorkspace(
      { "memory/notes/a.md": randomText(rnd, 12), "memory/notes/b.md": randomText(rnd, 12) },
      { provider, chunking: { maxTokens: 60, overlapTokens: 10 } },
    );
    const ids = [...tableBodies(store).keys()];
    expectAsTable(store, ids);
    const id = [...tableBlobs(store).keys()][0]!; // a chunk with a passage blob
    expect(id).toBeDefined();
    // A transaction that reads (inside it) what it wrote, then fails: nothing it saw may stay.
    expect(() =>
      store.transaction(() => {
        const db = rawDb(store);
        db.prepare(`UPDATE chunks SET text = 'rolled back' WHERE id = ?`).run(id);
        store.chunks.fileChanged(db.prepare(`SELECT file_id FROM chunks WHERE id = ?`).pluck().get(id) as number);
        store.vectors.passages.put(id, Buffer.from([0])); // as the store's writers do
        expect(store.chunkBodies([id]).get(id)?.text).toBe("rolled back");
        expect([...store.vectors.passages.byIds([id]).get(id)!]).toEqual([0]);
        throw new Error("fails");
      }),
    ).toThrow("fails");
    expectAsTable(store, ids);
    // The model changes: every passage blob goes (and comes back with the new vectors).
    store.vectors.passages.clear();
    expect(store.vectors.passages.byIds(ids).size).toBe(0);
    store.close();
  });
});

describe("RowCache", () => {
  function cache(maxBytes: number) {
    const db = new Database(join(tempDir(), "c.sqlite"));
    db.pragma("journal_mode = WAL");
    return { db, rows: new RowCache<string>(db, maxBytes) };
  }

  it("holds at most its bound, dropping the least recently used first", () => {
    const { db, rows } = cache(300);
    for (let id = 1; id <= 5; id++) rows.put(id, `v${id}`, 100);
    expect(rows.size).toEqual({ rows: 3, bytes: 300 });
    expect(rows.take([3]).hits.get(3)).toBe("v3"); // 3 is now the most recent
    rows.put(6, "v6", 100);
    const { hits, missing } = rows.take([1, 2, 3, 4, 5, 6]);
    expect([...hits.keys()]).toEqual([3, 5, 6]);
    expect(missing).toEqual([1, 2, 4]);
    rows.put(7, "too big", 301); // never kept, and evicts nothing
    expect(rows.size).toEqual({ rows: 3, bytes: 300 });
    db.close();
  });

  it("keeps nothing read inside a transaction, drops a stale stamp, and empties on another connection's commit", () => {
    const { db, rows } = cache(1000);
    db.exec(`CREATE TABLE t (x)`);
    db.transaction(() => rows.put(1, "in a transaction", 10))();
    expect(rows.take([1]).missing).toEqual([1]);
    rows.put(2, "stamped 5", 10, 5);
    expect(rows.take([2], (_v, stamp) => stamp >= 6).missing).toEqual([2]);
    expect(rows.size.rows).toBe(0);
    rows.put(3, "kept", 10);
    expect(rows.take([3]).hits.get(3)).toBe("kept");
    const other = new Database(db.name);
    other.exec(`INSERT INTO t VALUES (1)`);
    expect(rows.take([3]).missing).toEqual([3]);
    other.close();
    db.close();
  });
});

describe("stringBytes", () => {
  it("counts a Latin-1 text a byte a character, any other two", () => {
    expect(stringBytes("deploy café")).toBe(11);
    expect(stringBytes("deploy 部署")).toBe(18);
    expect(stringBytes("")).toBe(0);
  });
});
