/**
 * The facts pass (src/facts/sync-facts.ts) reads chunks in transactions sized by time: about 40 ms
 * of work each, between MIN_BATCH and MAX_BATCH chunks. Short chunks go in long batches (few
 * commits on a cold index), the batch never jumps past double the last one, and every chunk is read
 * once, in id order. A real index over real files.
 */
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_BATCH, MIN_BATCH, nextBatch, syncFacts } from "../src/facts/sync-facts.js";
import { openTestIndex, tempDir, writeFiles, type TestIndex } from "./helpers/workspace.js";

const open: TestIndex[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

describe("facts pass batches", () => {
  it("sizes the next batch by the last one's time, within the bounds, at most doubling", () => {
    expect(nextBatch(64, 1)).toBe(128);
    expect(nextBatch(1024, 1)).toBe(MAX_BATCH);
    expect(nextBatch(MAX_BATCH, 0.5)).toBe(MAX_BATCH);
    expect(nextBatch(512, 80)).toBe(256);
    expect(nextBatch(512, 10_000)).toBe(MIN_BATCH);
    expect(nextBatch(100, 40)).toBe(100);
    expect(nextBatch(64, 0)).toBe(128);
  });

  it("reads many short chunks in growing batches, each chunk once and in order", async () => {
    const root = tempDir();
    const files: Record<string, string> = {};
    for (let i = 0; i < 1500; i++) {
      const d = new Date(Date.UTC(2025, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
      files[`memory/notes-${String(i).padStart(4, "0")}.md`] =
        `# ${d}\n\n- 09:${String(i % 60).padStart(2, "0")} Priya reports to Helen Park now (${i}).\n`;
    }
    writeFiles(root, files);
    const t = openTestIndex(root, null);
    open.push(t);
    await t.indexer.sync();
    // The pass again from the start, on the same real index, watching its batches.
    t.store.facts.forgetReadings();
    const sizes: number[] = [];
    const ids: number[] = [];
    const report = await syncFacts(t.store, {
      onBatch: (batch) => {
        sizes.push(batch.length);
        ids.push(...batch);
      },
    });
    expect(report.chunks).toBe(1500);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(1500);
    expect(sizes[0]).toBe(MIN_BATCH);
    for (let i = 1; i < sizes.length; i++) {
      expect(sizes[i]).toBeLessThanOrEqual(Math.min(MAX_BATCH, 2 * sizes[i - 1]!));
      if (i < sizes.length - 1) expect(sizes[i]).toBeGreaterThanOrEqual(MIN_BATCH);
    }
    // How far they grow depends on the machine's speed (nextBatch above); on a loaded one a batch
    // may stay at MIN_BATCH, so the test asserts the bounds, not the growth.
  });

  it("stops between batches when told to (a stopping daemon), and the next pass reads the rest and links as one pass would", async () => {
    const root = tempDir();
    const files: Record<string, string> = {};
    const managers = ["Helen Park", "Yusuf Demir", "Ana Lima"];
    for (let i = 0; i < 600; i++) {
      const d = new Date(Date.UTC(2025, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
      files[`memory/${d}.md`] = `# ${d}\n\n- Priya reports to ${managers[Math.floor(i / 200)]} now (${i}).\n`;
    }
    writeFiles(root, files);
    const t = openTestIndex(root, null);
    open.push(t);
    await t.indexer.sync();
    const db = new Database(t.dbPath, { readonly: true });
    const slots = () =>
      db
        .prepare(
          `SELECT s.entity, s.cls, st.text, s.news, s.olds, (SELECT text FROM fact_statements WHERE id = s.superseded_by) AS by
           FROM fact_slots s JOIN fact_statements st ON st.id = s.statement_id ORDER BY 1, 2, 3`,
        )
        .all();
    const whole = slots();
    expect(whole.length).toBeGreaterThan(0);

    t.store.facts.forgetReadings();
    const stop = new AbortController();
    const first = await syncFacts(t.store, { signal: stop.signal, onBatch: () => stop.abort() });
    expect(first.aborted).toBe(true);
    expect(first.chunks).toBe(MIN_BATCH);
    const rest = await syncFacts(t.store);
    expect(rest.aborted).toBe(false);
    expect(first.chunks + rest.chunks).toBe(600);
    expect(slots()).toEqual(whole);
    db.close();
  });

  it("a first pass stopped part way dates the curated lines it reads afterwards as the first pass would (older than any log)", async () => {
    const files: Record<string, string> = {};
    const managers = ["Helen Park", "Yusuf Demir"];
    for (let i = 0; i < 200; i++) {
      const d = new Date(Date.UTC(2025, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
      files[`memory/${d}.md`] = `# ${d}\n\n- Priya reports to ${managers[Math.floor(i / 100)]} now (${i}).\n`;
    }
    const curated = { "MEMORY.md": "# Memory\n\n- Priya reports to Zed Old.\n" };
    /** Both writes indexed with no facts read (each sync stopped once its files are written). */
    const chunksOnly = async () => {
      const root = tempDir();
      writeFiles(root, files);
      const t = openTestIndex(root, null);
      open.push(t);
      for (const write of [() => {}, () => writeFiles(root, curated)]) {
        write();
        const stop = new AbortController();
        const r = await t.indexer.sync({
          signal: stop.signal,
          onProgress: (p) => {
            if (p.phase === "files" && p.filesDone === p.filesTotal && p.filesTotal > 0) stop.abort();
          },
        });
        expect(r.facts?.chunks ?? 0).toBe(0);
      }
      return t;
    };
    const slots = (t: TestIndex) => {
      const db = new Database(t.dbPath, { readonly: true });
      const rows = db
        .prepare(
          `SELECT s.entity, s.cls, st.text, (SELECT text FROM fact_statements WHERE id = s.superseded_by) AS by
           FROM fact_slots s JOIN fact_statements st ON st.id = s.statement_id ORDER BY 1, 2, 3`,
        )
        .all();
      db.close();
      return rows;
    };
    const whole = await chunksOnly();
    expect((await syncFacts(whole.store)).aborted).toBe(false);
    // The curated line (written last, so read last) is the oldest statement: the logs supersede it.
    expect(slots(whole)).toContainEqual(expect.objectContaining({ text: expect.stringContaining("Zed Old") }));
    expect(slots(whole).find((r) => String((r as { text: string }).text).includes("Zed Old"))).toMatchObject({
      by: expect.stringContaining("Helen Park"),
    });

    const parted = await chunksOnly();
    const stop = new AbortController();
    expect((await syncFacts(parted.store, { signal: stop.signal, onBatch: () => stop.abort() })).aborted).toBe(true);
    await syncFacts(parted.store);
    expect(slots(parted)).toEqual(slots(whole));
  });
});
