import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateWorkspace } from "../scripts/bench/generate.js";
import { indexPath } from "../src/engine/engine.js";
import { ensureTinyTestModel } from "./fixtures/embed/tiny-model.js";
import { openDatabase } from "../src/index/db/db.js";
import { defaultNamespace } from "../src/workspace/namespace.js";
import { runCli, spawnCli } from "./helpers/cli.js";
import { dumpIndex, tempDir } from "./helpers/workspace.js";

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

    const dataB = tempDir();
    const clean = runCli(["index", "--workspace", root, "--data-dir", dataB, "--json"], env);
    expect(clean.code, clean.stderr).toBe(0);

    const a = openDatabase(dbA);
    const b = openDatabase(indexPath(dataB, defaultNamespace(root)));
    expect(dumpIndex(a.db)).toEqual(dumpIndex(b.db));
    a.db.close();
    b.db.close();
  });
});
