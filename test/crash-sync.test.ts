import Database from "better-sqlite3";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { singleLineNote } from "../scripts/bench/abuse-files.js";
import { generateWorkspace } from "../scripts/bench/generate.js";
import { indexPath } from "../src/engine/engine.js";
import { ensureTinyTestModel } from "./fixtures/embed/tiny-model.js";
import { openDatabase } from "../src/index/db/db.js";
import { defaultNamespace } from "../src/workspace/namespace.js";
import { runCli, spawnCli } from "./helpers/cli.js";
import { dumpIndex, tempDir, writeFiles } from "./helpers/workspace.js";

function filesIndexed(dbPath: string): number {
  if (!existsSync(dbPath)) return 0;
  try {
    const db = new Database(dbPath, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare(`SELECT count(*) AS n FROM files`).get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0; // schema not created yet
  }
}

describe("crash consistency", () => {
  it("a sync killed with SIGKILL mid-way, then re-run, equals a clean build", async () => {
    const root = join(tempDir(), "ws");
    const gen = generateWorkspace(root, 300, 7);
    const model = await ensureTinyTestModel();
    const env = { CORTEXD_MODEL: model, CORTEXD_EMBEDDING_PROVIDER: "local", XDG_CONFIG_HOME: tempDir() };
    const dataA = tempDir();
    const dbA = indexPath(dataA, defaultNamespace(root));

    const child = spawnCli(["index", "--workspace", root, "--data-dir", dataA, "--json"], env);
    const exited = new Promise<void>((r) => child.on("exit", () => r()));
    const deadline = Date.now() + 60_000;
    while (filesIndexed(dbA) < 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGKILL");
    await exited;
    const partial = filesIndexed(dbA);
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(gen.files);

    const resumed = runCli(["index", "--workspace", root, "--data-dir", dataA, "--json"], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const report = JSON.parse(resumed.stdout).reports[0];
    expect(report.added).toBe(gen.files - partial);

    expectCleanBuild(root, dbA, env);
  });

  it("a sync killed with SIGKILL while it removes a huge file's chunks (in slices), then re-run, equals a clean build", async () => {
    const root = join(tempDir(), "ws");
    writeFiles(root, {
      "MEMORY.md": "# Memory\n\n- the release pipeline is owned by the heron team\n",
      "memory/2026-01-05.md": "# 2026-01-05\n\n- Sam baked a lemon drizzle cake for the team lunch.\n",
    });
    const huge = join(root, "memory", "one-line.md");
    singleLineNote(huge, 3); // indexed up to the per-file cap: 2,048 chunks
    const env = { CORTEXD_EMBEDDING_PROVIDER: "none", XDG_CONFIG_HOME: tempDir() };
    const dataA = tempDir();
    const dbA = indexPath(dataA, defaultNamespace(root));
    const first = runCli(["index", "--workspace", root, "--data-dir", dataA, "--json"], env);
    expect(first.code, first.stderr).toBe(0);

    const watch = new Database(dbA, { readonly: true, fileMustExist: true });
    const chunksOfHuge = watch.prepare(
      `SELECT count(c.id) AS n FROM files f LEFT JOIN chunks c ON c.file_id = f.id WHERE f.path = 'memory/one-line.md' GROUP BY f.id`,
    );
    const count = () => (chunksOfHuge.get() as { n: number } | undefined)?.n;
    const before = count()!;
    expect(before).toBeGreaterThan(1000);

    rmSync(huge);
    const child = spawnCli(["index", "--workspace", root, "--data-dir", dataA, "--json"], env);
    const exited = new Promise<void>((r) => child.on("exit", () => r()));
    const deadline = Date.now() + 60_000;
    let n = count();
    while (!(n !== undefined && n > 0 && n < before) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 2));
      n = count();
    }
    child.kill("SIGKILL");
    await exited;
    // Killed mid-way: the file's row is still there with some of its chunks (and a stamp that matches no disk).
    const left = count();
    watch.close();
    expect(left, `chunks left ${left} of ${before}`).toBeGreaterThan(0);
    expect(left).toBeLessThan(before);

    const resumed = runCli(["index", "--workspace", root, "--data-dir", dataA, "--json"], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expectCleanBuild(root, dbA, env);
  }, 120_000);
});

/** The index at `dbA` equals a clean `cortexd index` of the same workspace into a fresh data dir. */
function expectCleanBuild(root: string, dbA: string, env: Record<string, string>): void {
  const dataB = tempDir();
  const clean = runCli(["index", "--workspace", root, "--data-dir", dataB, "--json"], env);
  expect(clean.code, clean.stderr).toBe(0);
  const a = openDatabase(dbA);
  const b = openDatabase(indexPath(dataB, defaultNamespace(root)));
  expect(dumpIndex(a.db)).toEqual(dumpIndex(b.db));
  a.db.close();
  b.db.close();
}
