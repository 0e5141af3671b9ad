import { closeSync, openSync, readdirSync, statSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { generateWorkspace } from "../scripts/bench/generate.js";
import { indexPath } from "../src/config/paths.js";
import { defaultNamespace } from "../src/workspace/namespace.js";
import { runCli } from "./helpers/cli.js";
import { startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

// A daemon whose index is damaged while it runs (bytes overwritten under it): the first statement
// that meets the damage makes the workspace recover as at start — the file moved aside, a fresh
// index rebuilt from the memory files — without a restart, and search answers again.

const running: TestDaemon[] = [];
afterEach(async () => {
  for (const d of running.splice(0)) await d.stop();
});

const PAGE = 4096;

describe("an index damaged while the daemon runs", () => {
  it("is moved aside and rebuilt without a restart; search finds the memories again", async () => {
    const root = join(tempDir(), "ws");
    // Large enough that most of the index is not in the daemon's page cache (8 MB).
    generateWorkspace(root, 1500, 23);
    writeFiles(root, {
      "memory/2026-11-30.md": "# 2026-11-30\n\n- The zanzibarite migration was postponed to Friday.\n",
    });
    const dataDir = tempDir();
    const built = runCli(["index", "--workspace", root, "--data-dir", dataDir, "--json"], {
      CORTEXD_EMBEDDING_PROVIDER: "none",
      XDG_CONFIG_HOME: tempDir(),
    });
    expect(built.code, built.stderr).toBe(0);
    const db = indexPath(dataDir, defaultNamespace(root));
    expect(statSync(db).size).toBeGreaterThan(12 * 1024 * 1024);

    const d = await startDaemon({ args: ["--workspace", root, "--data-dir", dataDir] });
    running.push(d);
    await waitUntil(async () => {
      const st = (await d.call("index.status", {})) as { workspaces: { lastSync: string | null }[] };
      return st.workspaces[0]?.lastSync != null;
    }, 60_000);

    // Garbage over the middle half of the file (the header and schema pages stay intact).
    const size = statSync(db).size;
    const fd = openSync(db, "r+");
    try {
      const junk = Buffer.alloc(PAGE, 0xa5);
      for (let at = Math.floor(size / 4 / PAGE) * PAGE; at < (size * 3) / 4; at += PAGE)
        writeSync(fd, junk, 0, PAGE, at);
    } finally {
      closeSync(fd);
    }

    // Searches over many words read pages the cache does not hold; one of them meets the damage.
    const words = [
      "deploy",
      "release",
      "meeting",
      "budget",
      "travel",
      "hotel",
      "garden",
      "school",
      "doctor",
      "project",
    ];
    let refused = "";
    for (let i = 0; i < 200 && !refused; i++) {
      try {
        await d.call("memory.search", { query: `${words[i % words.length]} ${i}`, limit: 50 });
      } catch (e) {
        refused = String((e as Error).message);
      }
      const st = (await d.call("index.status", {})) as { workspaces: { lastError: string | null }[] };
      if (!refused && st.workspaces[0]?.lastError?.includes("damaged")) refused = st.workspaces[0].lastError;
    }
    expect(refused, "the damage was seen and said").toMatch(/damaged/);

    // The damaged file is kept beside the index, never deleted.
    const moved = readdirSync(dirname(db)).filter((n) => n.startsWith(`${defaultNamespace(root)}.sqlite.corrupt-`));
    expect(moved.length).toBeGreaterThan(0);

    // Rebuilt from the files while the daemon keeps running: the planted memory is found again.
    await waitUntil(async () => {
      const res = (await d.call("memory.search", { query: "zanzibarite migration" })) as {
        results: { path: string }[];
      };
      return res.results.some((r) => r.path === "memory/2026-11-30.md");
    }, 120_000);
    // ... and the whole workspace is indexed again.
    await waitUntil(async () => {
      const st = (await d.call("index.status", {})) as { workspaces: { files: number }[] };
      return st.workspaces[0]!.files >= 1501;
    }, 120_000);
    expect(d.child.exitCode).toBeNull();
  }, 240_000);
});
