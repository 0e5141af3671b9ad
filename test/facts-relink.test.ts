/**
 * Incremental fact links (src/facts/relink.ts): a sync relinks only the (entity, class) slots whose
 * statements came or went, and the links it keeps equal a build from scratch over the same files.
 * Real files, a real index (keyword-only), random edits from a seeded generator.
 */
import { appendFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { relinkAll } from "../src/facts/relink.js";
import { mulberry32 } from "../src/util/prng.js";
import { openTestIndex, tempDir, writeFiles, type TestIndex } from "./helpers/workspace.js";

const open: TestIndex[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

const PEOPLE = ["Priya", "Tomas", "Kira", "Jonas", "Elena", "Ravi", "Mei", "Omar"];
const MANAGERS = ["Helen Park", "Yusuf Demir", "Marta Kowalski", "Gabe Moreno"];
const SERVICES = ["billing-api", "ledger-job", "reports-etl", "auth-gateway"];
const TOOLS = ["Neovim", "Zed", "Emacs", "Helix"];

/** A random statement that changes some fact (managers, hosts, tools, meeting times). */
function statement(r: () => number): string {
  const pick = <T>(l: readonly T[]) => l[Math.floor(r() * l.length)]!;
  const hh = String(8 + Math.floor(r() * 10)).padStart(2, "0");
  switch (Math.floor(r() * 6)) {
    case 0:
      return `${hh}:10 ${pick(PEOPLE)} reports to ${pick(MANAGERS)} now.`;
    case 1:
      return `${hh}:20 Moved the ${pick(SERVICES)} from node-${1 + Math.floor(r() * 9)} to node-${10 + Math.floor(r() * 30)}.`;
    case 2:
      return `${hh}:30 ${pick(PEOPLE)} doesn't use ${pick(TOOLS)} anymore; it's ${pick(TOOLS)} now.`;
    case 3:
      return `${hh}:40 Standup for the ${pick(SERVICES)} team moved to ${1 + Math.floor(r() * 11)}:30am.`;
    case 4:
      return `${hh}:50 The ${pick(SERVICES)} runs on node-${1 + Math.floor(r() * 40)}.`;
    default:
      return `${hh}:55 ${pick(PEOPLE)} prefers ${pick(TOOLS)} for ${pick(SERVICES)} work.`;
  }
}

function dailyLog(date: string, lines: string[]): string {
  return `# ${date}\n\n${lines.map((l) => `- ${l}`).join("\n")}\n`;
}

const dateOf = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);

function workspace(r: () => number, days: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < days; i++)
    files[`memory/${dateOf(i)}.md`] = dailyLog(
      dateOf(i),
      Array.from({ length: 3 + Math.floor(r() * 4) }, () => statement(r)),
    );
  return files;
}

/** Every stored link, by where its statements are (ids differ between indexes). */
function links(dbPath: string): string[] {
  const db = new Database(dbPath, { readonly: true });
  try {
    return (
      db
        .prepare(
          `SELECT s.entity || '|' || s.cls || '|' || f.path || ':' || t.line || '|' || s.news || '|' || s.olds || '|' ||
             coalesce(bf.path || ':' || bt.line, '-') AS link
           FROM fact_slots s JOIN fact_statements t ON t.id = s.statement_id JOIN chunks c ON c.id = t.chunk_id
           JOIN files f ON f.id = c.file_id LEFT JOIN fact_statements bt ON bt.id = s.superseded_by
           LEFT JOIN chunks bc ON bc.id = bt.chunk_id LEFT JOIN files bf ON bf.id = bc.file_id ORDER BY link`,
        )
        .pluck()
        .all() as string[]
    ).filter((l) => l.length > 0);
  } finally {
    db.close();
  }
}

function slotCount(dbPath: string): number {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db.prepare(`SELECT count(*) FROM (SELECT DISTINCT entity, cls FROM fact_entries)`).pluck().get() as number;
  } finally {
    db.close();
  }
}

async function indexOf(files: Record<string, string>, root = tempDir()): Promise<TestIndex> {
  writeFiles(root, files);
  const t = openTestIndex(root, null);
  open.push(t);
  await t.indexer.sync();
  return t;
}

describe("incremental fact links", () => {
  it("a one-line edit of one file relinks only the slots its statements are in", async () => {
    const r = mulberry32(29);
    const t = await indexOf(workspace(r, 40));
    expect(slotCount(t.dbPath)).toBeGreaterThan(100);
    const file = join(t.root, "memory", `${dateOf(7)}.md`);
    appendFileSync(file, "- 18:05 Moved the billing-api from node-3 to node-77.\n");
    const report = await t.indexer.sync({ paths: [file] });
    const slots = slotCount(t.dbPath);
    expect(report.facts?.linked).toBe(true);
    // The appended statement's slots (billing-api's host, node-3's and node-77's) and those of the
    // file's other statements re-read with its chunk: a few, not every slot of the workspace.
    expect(report.facts?.slotsRelinked).toBeGreaterThan(0);
    expect(report.facts!.slotsRelinked).toBeLessThan(40);
    // Linking every slot again changes nothing.
    const incremental = links(t.dbPath);
    expect(relinkAll(t.store).slots).toBe(slots);
    expect(links(t.dbPath)).toEqual(incremental);
    // A sync with nothing changed relinks nothing.
    const again = await t.indexer.sync();
    expect(again.facts?.slotsRelinked).toBe(0);
  });

  it("after random edits, the links equal a build from scratch over the same files", async () => {
    const r = mulberry32(1301);
    const days = 30;
    const t = await indexOf(workspace(r, days));
    const names = () => Array.from({ length: days + 6 }, (_, i) => `memory/${dateOf(i)}.md`);
    for (let round = 0; round < 6; round++) {
      for (let k = 0; k < 4; k++) {
        const rel = names()[Math.floor(r() * (days + 6))]!;
        const path = join(t.root, rel);
        let text: string | null;
        try {
          text = readFileSync(path, "utf8");
        } catch {
          text = null;
        }
        const op = Math.floor(r() * 4);
        if (text === null || op === 0) writeFileSync(path, dailyLog(rel.slice(7, 17), [statement(r), statement(r)]));
        else if (op === 1) appendFileSync(path, `- ${statement(r)}\n`);
        else if (op === 2) {
          // Drop one statement line.
          const lines = text.split("\n");
          const entries = lines.map((l, i) => (l.startsWith("- ") ? i : -1)).filter((i) => i >= 0);
          if (entries.length > 0) lines.splice(entries[Math.floor(r() * entries.length)]!, 1);
          writeFileSync(path, lines.join("\n"));
        } else rmSync(path);
      }
      await t.indexer.sync();
      const incremental = links(t.dbPath);
      // The same files indexed from nothing.
      const fresh = openTestIndex(t.root, null);
      open.push(fresh);
      await fresh.indexer.sync();
      expect(incremental).toEqual(links(fresh.dbPath));
      // And every slot of this index linked again from its own statements.
      relinkAll(t.store);
      expect(links(t.dbPath)).toEqual(incremental);
    }
    expect(links(t.dbPath).filter((l) => !l.endsWith("|-")).length).toBeGreaterThan(20);
  });
});

describe("reading the facts again (a reader upgrade)", () => {
  // Emptied row by row, the statements' delete trigger queued each one for a relink (1.76M at a
  // million chunks, with ~10M mention rows counted down one by one: the daemon held ~80 s).
  it("leaves nothing queued or derived behind, and the next sync links as a build from scratch", async () => {
    const t = await indexOf(workspace(mulberry32(7), 20));
    const linked = links(t.dbPath);
    expect(linked.length).toBeGreaterThan(10);
    t.store.facts.forgetReadings();
    const db = new Database(t.dbPath, { readonly: true });
    try {
      for (const table of ["fact_relink", "fact_entries", "fact_slots", "fact_class_edges", "entity_counts"])
        expect(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get(), table).toBe(0);
    } finally {
      db.close();
    }
    await t.indexer.sync();
    expect(links(t.dbPath)).toEqual(linked);
  });
});
