import { copyFileSync, existsSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ensureTinyTestModel } from "./fixtures/embed/tiny-model.js";
import { runCli } from "./helpers/cli.js";
import { startBrokenModelDaemon, startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

const running: TestDaemon[] = [];
afterEach(async () => {
  for (const d of running.splice(0)) await d.stop();
});

function workspace(): string {
  const root = tempDir("cortexd-prov-");
  writeFiles(root, {
    "memory/2026-11-20.md":
      "# 2026-11-20\n\n- The deploy pipeline uses the blue server.\n- Lunch with Priya on Friday.\n",
  });
  return root;
}

describe("embedding provider failures: keyword search continues, status says why, the model file is never deleted", () => {
  it("an invalid GGUF at start: status names the problem, keyword search answers, heartbeats retry without touching the file", async () => {
    const root = workspace();
    const model = join(tempDir("cortexd-prov-model-"), "broken.gguf");
    const bytes = Buffer.concat([Buffer.from("GGUF"), Buffer.from([3, 0, 0, 0]), Buffer.alloc(200, 0x7f)]);
    writeFileSync(model, bytes);
    const d = await startBrokenModelDaemon({ root, model, files: 1, heartbeats: 2 });
    running.push(d);
    const st = await d.call("cortex.status", {});
    expect(st.healthy).toBe(false);
    expect(st.embedding.reason).toMatch(/broken\.gguf.*(not a valid GGUF|invalid GGUF)/);
    const res = await d.call("memory.search", { query: "deploy pipeline" });
    expect(res.mode).toBe("keyword");
    expect(res.results[0]!.path).toBe("memory/2026-11-20.md");
    expect(res.fallback).toMatch(/broken\.gguf/);
    expect(runCli(["status"], d.env).stdout).toMatch(
      /embedding: ERROR: configured model .*broken\.gguf failed to load/,
    );
    // Still there, byte for byte, after the load attempts.
    expect(readFileSync(model).equals(bytes)).toBe(true);
  }, 30_000);

  it("the model file deleted while running: vectors go on from memory, the heartbeat reports it; after a restart keyword search answers", async () => {
    const root = workspace();
    const model = join(tempDir("cortexd-prov-model-"), "model.gguf");
    copyFileSync(await ensureTinyTestModel(), model);
    const config = {
      workspaces: [{ path: root }],
      embedding: { provider: "local", model },
      schedule: { heartbeat: "* * * * * *" },
    };
    const env = { CORTEXD_EMBEDDING_PROVIDER: "local" };
    const d = await startDaemon({ config, env });
    running.push(d);
    await waitUntil(
      async () => {
        const st = await d.call("cortex.status", {});
        return st.embedding.state === "ready" && st.workspaces[0]!.vectors > 0 && st.workspaces[0]!.pending === 0;
      },
      30_000,
      100,
    );

    unlinkSync(model); // a person (or another tool) removes it
    await waitUntil(async () => !!(await d.call("cortex.status", {})).embedding.warning, 10_000);
    const st = await d.call("cortex.status", {});
    expect(st.healthy).toBe(false);
    expect(st.embedding.warning).toMatch(
      /model\.gguf is gone .*vectors continue from the loaded copy until the daemon restarts/,
    );
    expect(st.heartbeats!.at(-1)!.problems.join(" ")).toMatch(/model\.gguf is gone/);
    expect(runCli(["status"], d.env).stdout).toMatch(/WARNING: model file .*model\.gguf is gone/);
    expect((await d.call("memory.search", { query: "deploy pipeline" })).mode).toBe("hybrid");

    await d.stop();
    const again = await startDaemon({ home: d.home, config, env });
    running.push(again);
    await waitUntil(async () => (await again.call("cortex.status", {})).embedding.state === "error", 20_000);
    expect((await again.call("cortex.status", {})).embedding.reason).toMatch(/file not found/);
    const res = await again.call("memory.search", { query: "deploy pipeline" });
    expect(res.mode).toBe("keyword");
    expect(res.results.length).toBeGreaterThan(0);
    expect(existsSync(model)).toBe(false); // and nothing was put in its place
  }, 60_000);
});
