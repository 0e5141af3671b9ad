import { appendFileSync, existsSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { daemonsPerTest, waitUntil, writeConfig, type TestDaemon } from "./helpers/daemon.js";
import { generateWorkspace } from "../scripts/bench/generate.js";
import { exchange } from "./helpers/socket.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

const { daemonOn } = daemonsPerTest();

async function found(d: TestDaemon, query: string, path?: string): Promise<boolean> {
  const r = await d.call("memory.search", { query, limit: 10 });
  return r.results.some(
    (h) => (!path || h.path === path) && h.snippet.toLowerCase().includes(query.split(" ")[0]!.toLowerCase()),
  );
}

describe("daemon (real process, real socket)", () => {
  it("keeps the index fresh: written → searchable, appended transcript → searchable, deleted → gone", async () => {
    const root = tempDir();
    writeFiles(root, { "MEMORY.md": "- Prefers tea over coffee.\n" });
    const d = await daemonOn(root);
    await waitUntil(() => found(d, "tea"));

    writeFileSync(join(root, "MEMORY.md"), "- Prefers tea over coffee.\n- Allergic to walnuts.\n");
    writeFiles(root, { "memory/2026-11-29.md": "# 2026-11-29\n\n- Booked the kayaking trip to Lofoten.\n" });
    await waitUntil(() => found(d, "walnuts"));
    await waitUntil(() => found(d, "kayaking", "memory/2026-11-29.md"));

    const t = join(root, "sessions", "s1.jsonl");
    writeFiles(root, { "sessions/s1.jsonl": `{"role":"user","content":"what is the wifi password policy?"}\n` });
    await waitUntil(() => found(d, "wifi"));
    appendFileSync(t, `{"role":"assistant","content":"Rotate the guest network passphrase monthly."}\n`);
    await waitUntil(() => found(d, "passphrase", "sessions/s1.jsonl"));

    rmSync(join(root, "memory/2026-11-29.md"));
    await waitUntil(async () => !(await found(d, "kayaking")));
    const st = await d.call("index.status", {});
    expect(st.workspaces[0]).toMatchObject({ root, files: 2, dirty: 0 });
  });

  it("a second daemon is refused; a daemon killed with SIGKILL leaves a stale socket that the next one replaces, and it catches up", async () => {
    const root = tempDir();
    writeFiles(root, { "memory/a.md": "alpha apple" });
    const d1 = await daemonOn(root);
    await waitUntil(() => found(d1, "alpha"));

    const second = runCli(["run"], d1.env);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/already running \(pid \d+\)/);

    d1.child.kill("SIGKILL");
    await d1.exited();
    expect(existsSync(d1.socket)).toBe(true); // stale socket left behind
    writeFiles(root, { "memory/b.md": "bravo banana written while the daemon was down" });
    rmSync(join(root, "memory/a.md"));

    const down = runCli(["status"], d1.env);
    expect(down.code).toBe(3);
    expect(down.stdout).toMatch(/not running.*stale socket/);

    const d2 = await daemonOn(root, { home: d1.home });
    await waitUntil(() => found(d2, "bravo"));
    await waitUntil(async () => !(await found(d2, "alpha")));
    const up = runCli(["status"], d2.env);
    expect(up.code, up.stdout).toBe(0);
    expect(up.stdout).toMatch(/running \(pid \d+/);
    const json = JSON.parse(runCli(["status", "--json"], d2.env).stdout);
    expect(json).toMatchObject({ running: true, healthy: true, version: expect.any(String), retryQueuePending: 0 });
    expect(json.knowledgeState).toMatchObject({ hasMemories: true });
    expect(json.recallMetrics.count).toBeGreaterThan(0);
  });

  it("answers bad requests with JSON-RPC errors and keeps serving", async () => {
    const root = tempDir();
    writeFiles(root, { "memory/a.md": "alpha" });
    const d = await daemonOn(root, { daemon: { maxRequestBytes: 4096 } });
    const replies = (await exchange(
      d.socket,
      [
        "{not json",
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "no.such" }),
        JSON.stringify({ jsonrpc: "2.0", id: 2, method: "memory.search", params: { query: 5 } }),
        JSON.stringify({ jsonrpc: "2.0", id: 3, method: "memory.search", params: { query: "x", limit: 0 } }),
        JSON.stringify({ jsonrpc: "2.0", id: 4, method: "memory.get", params: { path: "../../etc/passwd" } }),
        JSON.stringify({ jsonrpc: "2.0", id: 5, method: "daemon.ping" }),
      ].join("\n") + "\n",
      6,
    )) as { id: number | null; error?: { code: number; message: string }; result?: unknown }[];
    const byId = new Map(replies.map((r) => [r.id, r]));
    expect(byId.get(null)?.error?.code).toBe(-32700);
    expect(byId.get(1)?.error?.code).toBe(-32601);
    expect(byId.get(2)?.error).toMatchObject({ code: -32602, message: expect.stringMatching(/query/) });
    expect(byId.get(3)?.error).toMatchObject({ code: -32602, message: expect.stringMatching(/limit/) });
    expect(byId.get(4)?.error?.code).toBe(-32001);
    expect(byId.get(5)?.result).toMatchObject({ pong: true });
    const big = (await exchange(
      d.socket,
      JSON.stringify({ jsonrpc: "2.0", id: 9, method: "memory.search", params: { query: "x".repeat(10_000) } }) + "\n",
      1,
    )) as {
      error?: { code: number };
    }[];
    expect(big[0]?.error?.code).toBe(-32005);
    expect((await d.call("daemon.ping", {})).pong).toBe(true);
    const got = await d.call("memory.get", { path: "memory/a.md" });
    expect(got).toMatchObject({ path: "memory/a.md", text: "alpha", from: 1, to: 1, truncated: false });
  });

  it("shuts down cleanly on SIGTERM: socket removed, exit 0; socket is 0600 in a 0700 dir", async () => {
    const root = tempDir();
    const d = await daemonOn(root);
    expect(statSync(d.socket).mode & 0o777).toBe(0o600);
    expect(statSync(join(d.socket, "..")).mode & 0o777).toBe(0o700);
    d.child.kill("SIGTERM");
    expect(await d.exited()).toBe(0);
    expect(existsSync(d.socket)).toBe(false);
  });

  it("SIGTERM during a long cold index stops at the next batch, and the next start finishes the index", async () => {
    const root = tempDir();
    generateWorkspace(root, 3000, 7);
    const home = tempDir("cortexd-home-");
    const d = await daemonOn(root, { home });
    await waitUntil(async () => (await d.call("index.status", {})).workspaces[0]!.files > 0, 20_000, 10);
    const t0 = performance.now();
    d.child.kill("SIGTERM");
    expect(await d.exited()).toBe(0);
    const stopMs = performance.now() - t0;
    const again = await daemonOn(root, { home });
    const t1 = performance.now();
    await waitUntil(
      async () => {
        const w = (await again.call("index.status", {})).workspaces[0]!;
        return w.files === 3000 && w.lastSync !== null;
      },
      60_000,
      50,
    );
    const finishMs = performance.now() - t1;
    // The stop did not wait for the whole index (which the second start still had work left of).
    expect(stopMs).toBeLessThan(Math.max(1500, finishMs));
    console.log(
      `SIGTERM mid-index: stopped in ${Math.round(stopMs)} ms; the next start finished in ${Math.round(finishMs)} ms`,
    );
  }, 120_000);

  it("SIGHUP reloads the config: search settings apply live; an invalid file keeps the running config", async () => {
    const root = tempDir();
    writeFiles(root, { "memory/a.md": "apple one", "memory/b.md": "apple two", "memory/c.md": "apple three" });
    const d = await daemonOn(root);
    await waitUntil(async () => (await d.call("memory.search", { query: "apple" })).results.length === 3);
    writeConfig(d.home, {
      workspaces: [{ path: root }],
      daemon: { debounceMs: 50, settleMs: 20 },
      search: { maxResults: 1 },
    });
    d.child.kill("SIGHUP");
    await waitUntil(async () => (await d.call("memory.search", { query: "apple" })).results.length === 1);
    writeFileSync(join(d.home, ".config", "cortexd", "config.json"), "{ broken");
    d.child.kill("SIGHUP");
    await waitUntil(async () =>
      (await d.call("cortex.status", {})).errors.some((e) => /not valid JSON/.test(e.message)),
    );
    expect((await d.call("memory.search", { query: "apple" })).results).toHaveLength(1);
    expect((await d.call("daemon.ping", {})).pong).toBe(true);
  });

  it("polling mode keeps the index fresh and says so in status", async () => {
    const root = tempDir();
    const d = await daemonOn(root, { daemon: { watch: "poll", pollIntervalMs: 250 } });
    writeFiles(root, { "memory/p.md": "polling pelican" });
    await waitUntil(() => found(d, "pelican"));
    const st = await d.call("cortex.status", {});
    expect(st.watcher).toMatchObject({ mode: "polling", reason: expect.stringMatching(/poll/) });
  });
});
