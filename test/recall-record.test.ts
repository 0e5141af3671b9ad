/**
 * Recall's access log is written after the answer, and none of it is lost: what promotion reads
 * right after a recall already counts it, and a daemon stopped right after answering has it on
 * disk. A real daemon over its socket, a real index file.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/index/db/db.js";
import { IndexStore } from "../src/index/repos/store.js";
import { daemonsPerTest } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

const { daemonOn } = daemonsPerTest();

function indexFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile() && e.name.endsWith(".sqlite")) out.push(join(e.parentPath, e.name));
  return out;
}

describe("recall access log", () => {
  it("counts a recall for promotion at once, and keeps the entries of a daemon stopped right after answering", async () => {
    const root = tempDir();
    writeFiles(root, {
      "memory/2026-11-10.md":
        "# 2026-11-10\n\n- Sam baked a lemon drizzle cake for the team lunch on Friday.\n- The printer on floor three jammed again.\n",
    });
    const home = tempDir("cortexd-home-");
    const d = await daemonOn(root, { home });
    const queries = ["what cake did Sam bake?", "Sam lemon drizzle cake", "which cake for the team lunch, Sam?"];
    for (const query of queries) expect((await d.call("memory.recall", { query })).memory_count).toBe(1);
    const [ws] = await d.call("promote.list", {});
    expect(ws!.candidates.map((c) => [c.path, c.recalls, c.queries])).toEqual([["memory/2026-11-10.md", 3, 3]]);
    // One more, then the daemon stops straight away.
    expect((await d.call("memory.recall", { query: "lemon cake by Sam" })).memory_count).toBe(1);
    await d.stop();
    const [file] = indexFiles(home);
    const db = new Database(file!, { readonly: true });
    try {
      expect(db.prepare("SELECT count(*) FROM recalls").pluck().get()).toBe(4);
      expect(db.prepare("SELECT count(DISTINCT query_hash) FROM recalls").pluck().get()).toBe(4);
    } finally {
      db.close();
    }
  });

  it("writes queued recalls together, after the answers' turn, and all of them", async () => {
    const file = join(tempDir(), "index.sqlite");
    const store = new IndexStore(openDatabase(file), "t");
    const onDisk = () => {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare("SELECT count(*) FROM recalls").pluck().get() as number;
      } finally {
        db.close();
      }
    };
    const hit = { hash: "ab".repeat(32), path: "memory/2026-11-10.md", startLine: 3, endLine: 4 };
    try {
      const until = async (n: number) => {
        for (let waited = 0; onDisk() < n && waited < 10_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
        return onDisk();
      };
      for (let i = 0; i < 5; i++) store.recalls.recordLater(`${i}`.padStart(64, "0"), [hit]);
      await new Promise((r) => setImmediate(r));
      // The answers' turn went by: nothing written yet, the five wait to go together.
      expect(onDisk()).toBe(0);
      // Then they are written without anything asking for them.
      expect(await until(5)).toBe(5);
      // Queued right before the index closes: written by the close.
      for (let i = 0; i < 3; i++) store.recalls.recordLater(`${i}`.padStart(64, "1"), [hit]);
    } finally {
      store.close();
    }
    expect(onDisk()).toBe(8);
  });
});
