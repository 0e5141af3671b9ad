import { copyFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { ensureTinyTestModel } from "./fixtures/embed/tiny-model.js";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../src/index/db/db.js";
import { runCli } from "./helpers/cli.js";
import { startBrokenModelDaemon, startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

const running: TestDaemon[] = [];
afterEach(async () => {
  for (const d of running.splice(0)) await d.stop();
});

async function daemonOn(root: string, config: Record<string, unknown> = {}): Promise<TestDaemon> {
  const d = await startDaemon({ config: { workspaces: [{ path: root }], ...config } });
  running.push(d);
  return d;
}

function dbFile(home: string): string {
  const dir = join(home, ".local/share/cortexd/indexes");
  return join(
    dir,
    readdirSync(dir).find((f) => f.endsWith(".sqlite"))!,
  );
}

describe("heartbeat (real daemon)", () => {
  it("finds and indexes a file changed while the watcher is off, counts the drift, reports it in status", async () => {
    const root = tempDir("cortexd-hb-");
    writeFiles(root, { "MEMORY.md": "# MEMORY\n\n- Prefers tea.\n" });
    const d = await daemonOn(root, { daemon: { watch: "off" }, schedule: { heartbeat: "* * * * * *" } });
    await waitUntil(async () => (await d.call("cortex.status", {})).workspaces[0]!.files === 1);
    writeFiles(root, { "memory/2026-11-28.md": "# 2026-11-28\n\n- The zanzibar migration finished.\n" });
    await waitUntil(async () => (await d.call("memory.search", { query: "zanzibar" })).results.length > 0, 15_000);
    const st = await d.call("cortex.status", {});
    expect(st.heartbeats!.some((h) => h.drift >= 1 && h.db)).toBe(true);
    expect(st.heartbeats!.length).toBeLessThanOrEqual(20);
    expect(st.lastHeartbeat).not.toBeNull();
    expect(st.knowledgeState.lastHeartbeat).not.toBeNull();
    expect(st.knowledgeState.hasMemories).toBe(true);
    expect(st.schedule.find((j) => j.name === "heartbeat")!.lastResult).toMatch(/ok|repaired drift/);
    // The DB write landed in the heartbeat table.
    const db = openDatabase(dbFile(d.home), { readonly: true }).db;
    expect((db.prepare(`SELECT beats FROM heartbeat`).get() as { beats: number }).beats).toBeGreaterThan(0);
    db.close();
  }, 30_000);
});

describe("provider recovery (real daemon)", () => {
  it("a model that fails to load is retried by the heartbeat; once it loads, vectors are backfilled", async () => {
    const root = tempDir("cortexd-rec-");
    writeFiles(root, { "memory/2026-11-20.md": "# 2026-11-20\n\n- The deploy pipeline uses the blue server.\n" });
    const modelDir = tempDir("cortexd-rec-model-");
    const model = join(modelDir, "model.gguf");
    const d = await startBrokenModelDaemon({ root, model, files: 1, heartbeats: 1 });
    running.push(d);
    expect((await d.call("cortex.status", {})).workspaces[0]!.vectors).toBe(0);
    copyFileSync(await ensureTinyTestModel(), model); // the model becomes available
    await waitUntil(
      async () => {
        const st = await d.call("cortex.status", {});
        return st.embedding.state === "ready" && st.workspaces[0]!.vectors === 1 && st.workspaces[0]!.pending === 0;
      },
      40_000,
      100,
    );
    const st = await d.call("cortex.status", {});
    expect(st.heartbeats!.some((h) => h.embedding === "recovered")).toBe(true);
    expect((await d.call("memory.search", { query: "deploy pipeline" })).mode).toBe("hybrid");
  }, 60_000);
});

describe("consolidation (real daemon)", () => {
  it("consolidate.run / consolidate.report over RPC; the report shows in status; supersession changes recall", async () => {
    const root = tempDir("cortexd-cons-");
    writeFiles(root, {
      "memory/2026-11-02.md": "# 2026-11-02\n\n- Deploys run on Fridays.\n",
      "memory/2026-11-15.md": "# 2026-11-15\n\n- Deploys moved to Tuesdays.\n",
    });
    const d = await daemonOn(root);
    await waitUntil(async () => (await d.call("cortex.status", {})).workspaces[0]!.files === 2);
    const dry = await d.call("consolidate.run", { dryRun: true });
    expect(dry.reports[0]!.superseded).toBe(1);
    // Facts over time (src/facts) already put the newer statement first at index time, before any consolidation.
    expect((await d.call("memory.recall", { query: "deploys" })).memories.map((m) => m.path)).toEqual([
      "memory/2026-11-15.md",
    ]);
    const run = await d.call("consolidate.run", {});
    expect(run.reports[0]!.maintenance!.quickCheck).toBe("ok");
    const rec = await d.call("memory.recall", { query: "deploys" });
    expect(rec.memories.map((m) => m.path)).toEqual(["memory/2026-11-15.md"]);
    expect((await d.call("memory.recall", { query: "deploys", includeHistory: true })).memories).toHaveLength(2);
    const rep = await d.call("consolidate.report", { limit: 2 });
    expect(rep.reports.map((r) => r.dryRun)).toEqual([false, true]);
    const st = await d.call("cortex.status", {});
    expect(st.consolidation![0]!.superseded).toBe(1);
    const cli = runCli(["status"], d.env);
    expect(cli.stdout).toMatch(/consolidation \(.*\): 0 duplicate groups, 0 reinforced, 1 superseded/);
  }, 30_000);

  it("a consolidation killed with SIGKILL leaves a consistent index; a re-run succeeds", async () => {
    const root = tempDir("cortexd-kill-");
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) {
      const day = `2026-${String(1 + (i % 11)).padStart(2, "0")}-${String(1 + (i % 28)).padStart(2, "0")}`;
      files[`memory/${day}-${i}.md`] =
        `# ${day}\n\n- Entry ${i} about project p${i} and its owner o${i % 13}.\n\n- Note ${i}: the build for team ${i % 7} is green.\n`;
    }
    files["memory/2026-12-01.md"] = "# 2026-12-01\n\n- Deploys run on Fridays.\n";
    files["memory/2026-12-05.md"] = "# 2026-12-05\n\n- Deploys moved to Tuesdays.\n";
    writeFiles(root, files);
    const d = await daemonOn(root);
    await waitUntil(
      async () => (await d.call("cortex.status", {})).workspaces[0]!.files === Object.keys(files).length,
      20_000,
    );
    void d.call("consolidate.run", {}).catch(() => {});
    await new Promise((r) => setTimeout(r, 15));
    d.child.kill("SIGKILL");
    await d.exited();
    const db = openDatabase(dbFile(d.home)).db;
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    db.prepare(`INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)`).run();
    db.close();
    const again = runCli(["consolidate", "--json"], d.env);
    expect(again.code, again.stderr).toBe(0);
    const out = JSON.parse(again.stdout) as { reports: { superseded: number; maintenance: { quickCheck: string } }[] };
    expect(out.reports[0]!.maintenance.quickCheck).toBe("ok");
    expect(out.reports[0]!.superseded).toBeGreaterThan(0);
  }, 60_000);
});

describe("cortexd promote (CLI, no daemon)", () => {
  it("lists, applies once with a backup, and a second apply adds nothing", () => {
    const home = tempDir("cortexd-promote-home-");
    const root = tempDir("cortexd-promote-");
    writeFiles(root, {
      "MEMORY.md": "# MEMORY\n\n- Prefers tea.\n",
      "memory/2026-11-20.md": "# 2026-11-20\n\n- The quarterly vault rotation runs on the staging cluster.\n",
    });
    const env = {
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_DATA_HOME: join(home, "data"),
      XDG_RUNTIME_DIR: join(home, "run"),
      CORTEXD_EMBEDDING_PROVIDER: "none",
    };
    expect(runCli(["-w", root, "index"], env).code).toBe(0);
    for (const q of ["vault rotation", "staging cluster", "quarterly rotation"])
      expect(runCli(["-w", root, "recall", q], env).code).toBe(0);
    const list = runCli(["-w", root, "promote", "--list"], env);
    expect(list.stdout).toMatch(/1 candidates\n\s+memory\/2026-11-20\.md:1-3 \(3 recalls, 3 queries\)/);
    const before = readFileSync(join(root, "MEMORY.md"), "utf8");
    const a1 = runCli(["-w", root, "promote", "--apply"], env);
    expect(a1.code, a1.stderr).toBe(0);
    expect(a1.stdout).toMatch(/appended 1 entries/);
    const after = readFileSync(join(root, "MEMORY.md"), "utf8");
    expect(after.startsWith(before)).toBe(true);
    expect(after).toContain("- The quarterly vault rotation runs on the staging cluster.");
    const a2 = runCli(["-w", root, "promote", "--apply"], env);
    expect(a2.stdout).toMatch(/no promotion candidates/);
    expect(readFileSync(join(root, "MEMORY.md"), "utf8")).toBe(after);
    const baks = readdirSync(root).filter((f) => f.startsWith("MEMORY.md.bak-"));
    expect(baks).toHaveLength(1);
    expect(readFileSync(join(root, baks[0]!), "utf8")).toBe(before);
    writeFileSync(join(root, "MEMORY.md"), before); // undo = copy the backup back
  }, 60_000);
});
