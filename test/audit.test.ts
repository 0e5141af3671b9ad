import { statSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import plugin, { type OpenClawPluginApi } from "../integrations/openclaw/index.js";
import type { AuditEntry } from "../src/rpc/protocol.js";
import { runCli } from "./helpers/cli.js";
import { daemonsPerTest, startDaemon, waitUntil } from "./helpers/daemon.js";
import { BIN, ccEvent, runTimed } from "./helpers/hooks.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

const { daemonOn, track } = daemonsPerTest();

const auditOf = (env: Record<string, string>, args: string[] = []): AuditEntry[] => {
  const r = runCli(["audit", "--json", ...args], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as AuditEntry[];
};

describe("audit log: what recall and search gave to whom", () => {
  it("records each recall and search answer with client, session, scope, query and the memories' paths, lines and visibility", async () => {
    const root = tempDir();
    writeFiles(root, {
      "memory/2026-01-04.md": "# 2026-01-04\n\n- The staging database moved to the eu-west-3 region.\n",
      "MEMORY.md": "- The deploy key rotation is every 90 days.\n",
    });
    const d = await daemonOn(root);
    const status = await d.call("cortex.status", {});
    expect(status.audit).toMatchObject({ enabled: true, query: "text" });
    await d.call("memory.recall", {
      query: "staging database region moved? password=hunter2secret",
      client: "test-host",
      session_id: "s-audit-1",
    });
    await d.call("memory.search", { query: "deploy key rotation", session_id: "s-audit-2" });
    await d.call("memory.search", { query: "not recorded", audit: false });
    // The UserPromptSubmit hook, a real process: recorded as claude-code with its session.
    const hook = await runTimed(
      process.execPath,
      [BIN, "hook", "UserPromptSubmit", "--timeout-ms", "5000"],
      d.env,
      JSON.stringify(
        ccEvent("user-prompt-submit", { prompt: "staging database region?", cwd: root, session_id: "cc-1" }),
      ),
    );
    expect(hook.stdout).toContain("eu-west-3");

    const all = auditOf(d.env);
    expect(all.map((e) => e.method)).toEqual(["memory.recall", "memory.search", "memory.recall"]);
    const [recall, search, fromHook] = all as [AuditEntry, AuditEntry, AuditEntry];
    expect(recall).toMatchObject({ client: "test-host", session: "s-audit-1", scope: "private" });
    expect(recall.query).toContain("[REDACTED:");
    expect(recall.query).not.toContain("hunter2secret");
    expect(recall.memories).toContainEqual(
      expect.objectContaining({ path: "memory/2026-01-04.md", startLine: 3, endLine: 3, visibility: "open" }),
    );
    expect(recall.bytes).toBeGreaterThan(0);
    expect(search.memories).toContainEqual(expect.objectContaining({ path: "MEMORY.md", visibility: "private" }));
    expect(fromHook).toMatchObject({ client: "claude-code", session: "cc-1" });
    expect(fromHook.memories.map((m) => m.path)).toContain("memory/2026-01-04.md");
    expect(auditOf(d.env, ["--session", "cc-1"])).toHaveLength(1);
    expect(auditOf(d.env, ["--since", "2099-01-01"])).toEqual([]);
    // Human output names the same.
    const text = runCli(["audit", "--session", "s-audit-1"], d.env).stdout;
    expect(text).toMatch(/recall test-host session s-audit-1 scope private .*memory\/2026-01-04\.md:3-3 \(open\)/);
    // Owner-only, like everything in the data dir.
    const dir = join(d.home, ".local/share/cortexd/audit");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "audit.jsonl")).mode & 0o777).toBe(0o600);
  });

  it("is size-bounded (rotated, a fixed number kept), can record only the query's hash, and can be turned off", async () => {
    const root = tempDir();
    writeFiles(root, { "memory/2026-01-04.md": "# 2026-01-04\n\n- The heron colony is at the north shore.\n" });
    const d = track(
      await startDaemon({
        config: { workspaces: [{ path: root }], audit: { maxBytes: 4096, keep: 2, query: "hash" } },
      }),
    );
    await waitUntil(
      async () => (await d.call("cortex.status", {})).workspaces.every((w) => w.lastSync !== null),
      30_000,
    );
    for (let i = 0; i < 60; i++) await d.call("memory.recall", { query: `where is the heron colony ${i}?` });
    const dir = join(d.home, ".local/share/cortexd/audit");
    expect(readdirSync(dir).sort()).toEqual(["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2"]);
    for (const f of readdirSync(dir)) expect(statSync(join(dir, f)).size).toBeLessThan(4096 + 2048);
    const last = auditOf(d.env, ["-n", "1"])[0]!;
    expect(last.query).toBeUndefined();
    expect(last.queryHash).toMatch(/^[0-9a-f]{64}$/);

    const off = track(await startDaemon({ config: { workspaces: [{ path: root }], audit: { enabled: false } } }));
    await waitUntil(
      async () => (await off.call("cortex.status", {})).workspaces.every((w) => w.lastSync !== null),
      30_000,
    );
    await off.call("memory.recall", { query: "heron colony" });
    expect((await off.call("cortex.status", {})).audit?.enabled).toBe(false);
    expect(auditOf(off.env)).toEqual([]);
  });

  it("the OpenClaw plugin's /audit shows the entries; /audit off stops recording its recalls and tool calls, /audit on resumes", async () => {
    const root = tempDir();
    writeFiles(root, { "memory/2026-01-04.md": "# 2026-01-04\n\n- The kayak rental closes at six on weekdays.\n" });
    const d = await daemonOn(root);
    const hooks = new Map<string, (ev: unknown, ctx: unknown) => unknown>();
    const commands = new Map<string, { handler: (ctx: unknown) => unknown }>();
    const api: OpenClawPluginApi = {
      pluginConfig: { socketPath: d.socket, recallTimeoutMs: 5000 },
      on: (event, h) => hooks.set(event, h),
      registerGatewayMethod: () => {},
      registerTool: () => {},
      registerCommand: (c) => commands.set(c.name, c),
    };
    plugin.register(api);
    const ctx = { sessionKey: "agent:main:main", trigger: "user" };
    const ask = async (q: string) =>
      (await hooks.get("before_prompt_build")!({ prompt: q }, ctx)) as { prependContext?: string } | undefined;
    const audit = async (args = "") =>
      ((await commands.get("audit")!.handler({ args, sessionKey: "agent:main:main" })) as { text: string }).text;

    expect((await ask("when does the kayak rental close?"))?.prependContext).toContain("kayak");
    expect(await audit()).toMatch(
      /audit log: on[\s\S]*recall \[private\] "when does the kayak rental close\?": 1 memories/,
    );
    expect(await audit("off")).toMatch(/off/);
    expect((await ask("kayak rental hours on weekdays?"))?.prependContext).toContain("kayak");
    expect(auditOf(d.env)).toHaveLength(1);
    expect(await audit()).toMatch(/audit log: off/);
    expect(await audit("on")).toMatch(/on/);
    await ask("is the kayak rental open at seven?");
    const entries = auditOf(d.env, ["--session", "agent:main:main"]);
    expect(entries.map((e) => e.query)).toEqual([
      "when does the kayak rental close?",
      "is the kayak rental open at seven?",
    ]);
    expect(entries.every((e) => e.client === "openclaw")).toBe(true);
    expect(entries[0]!.memories[0]).toMatchObject({ path: "memory/2026-01-04.md", startLine: 3, visibility: "open" });
  });
});
