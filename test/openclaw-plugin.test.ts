import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import plugin, {
  captureWindow,
  configSchema,
  scopeFor,
  type OpenClawPluginApi,
  type PluginTool,
} from "../integrations/openclaw/index.js";
import { localDate } from "../src/memory-files/entry.js";
import { startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

const running: TestDaemon[] = [];
afterEach(async () => {
  for (const d of running.splice(0)) await d.stop();
});

type Handler = (event: unknown, ctx: unknown) => unknown;

/** A stand-in for OpenClaw's plugin API that records what the plugin registers. */
function fakeApi(pluginConfig: Record<string, unknown>) {
  const hooks = new Map<string, Handler[]>();
  const methods = new Map<
    string,
    (a: { params?: unknown; respond: (ok: boolean, payload?: unknown, error?: unknown) => void }) => unknown
  >();
  const tools = new Map<string, PluginTool>();
  const factories = new Map<string, (ctx: any) => PluginTool>();
  const commands = new Map<string, { handler: (ctx: unknown) => unknown }>();
  const services: { id: string; stop(): void }[] = [];
  const logs: string[] = [];
  const stateDir = tempDir("cortexd-oc-state-");
  const api: OpenClawPluginApi = {
    pluginConfig,
    runtime: { state: { resolveStateDir: () => stateDir } },
    logger: {
      debug: (m) => logs.push(m),
      info: (m) => logs.push(m),
      warn: (m) => logs.push(m),
      error: (m) => logs.push(m),
    },
    on: (event, handler) => hooks.set(event, [...(hooks.get(event) ?? []), handler]),
    registerGatewayMethod: (name, handler) => methods.set(name, handler),
    // A factory gets the tool context of a private conversation (the main session) unless a test asks for another.
    registerTool: (tool, opts) => {
      if (typeof tool !== "function") return void tools.set(tool.name, tool);
      for (const name of opts?.names ?? []) {
        factories.set(name, tool);
        tools.set(name, tool({ sessionKey: "agent:main:main" }));
      }
    },
    registerCommand: (cmd) => commands.set(cmd.name, cmd),
    registerService: (svc) => services.push(svc),
  };
  return {
    api,
    hooks,
    tools,
    /** The tool as OpenClaw makes it for a conversation with this context. */
    toolFor: (name: string, ctx: unknown) => factories.get(name)!(ctx),
    commands,
    logs,
    stop: () => services.forEach((s) => s.stop()),
    /** Runs a hook's handlers as the gateway does, returning their results. */
    fire: async (event: string, ev: unknown, ctx: unknown) =>
      Promise.all((hooks.get(event) ?? []).map((h) => h(ev, ctx))),
    status: () =>
      new Promise<{ ok: boolean; payload: Record<string, unknown> }>((res) => {
        void methods.get("cortex.status")!({
          params: {},
          respond: (ok, payload) => res({ ok, payload: payload as Record<string, unknown> }),
        });
      }),
  };
}

const text = (r: { content: { text: string }[] }) => r.content.map((c) => c.text).join("\n");

describe("OpenClaw plugin (fake plugin API, real daemon)", () => {
  it("ships a manifest OpenClaw loads (activation, contracts.tools, category, the config schema) and registers cortex.status, before_prompt_build, agent_end and the two tools", () => {
    const manifest = JSON.parse(
      readFileSync(resolve(import.meta.dirname, "../integrations/openclaw/openclaw.plugin.json"), "utf8"),
    ) as {
      id: string;
      activation: { onStartup: boolean };
      contracts: { tools: string[] };
      categories: string[];
      configSchema: { additionalProperties: boolean; properties: Record<string, unknown> };
    };
    expect(manifest.id).toBe(plugin.id);
    expect(manifest.activation).toEqual({ onStartup: true });
    expect(manifest.categories).toEqual(["memory"]);
    // The manifest's schema is the one the runtime validates with.
    expect(manifest.configSchema).toEqual(configSchema.jsonSchema);
    const pkg = JSON.parse(
      readFileSync(resolve(import.meta.dirname, "../integrations/openclaw/package.json"), "utf8"),
    ) as { type: string; openclaw: { extensions: string[] }; dependencies?: object };
    expect(pkg).toMatchObject({ type: "module", openclaw: { extensions: ["./index.js"] } });
    expect(pkg.dependencies).toBeUndefined();

    const f = fakeApi({ socketPath: "/nonexistent/cortexd.sock" });
    plugin.register(f.api);
    expect([...f.hooks.keys()].sort()).toEqual(["agent_end", "before_prompt_build", "session_end"]);
    expect([...f.tools.keys()].sort()).toEqual(["cortex_save_memory", "cortex_search_memory"]);
    expect([...f.tools.keys()].sort()).toEqual([...manifest.contracts.tools].sort());
    for (const t of f.tools.values()) expect(t.label).toMatch(/\S/);
    expect(f.tools.get("cortex_save_memory")!.parameters).toMatchObject({ type: "object", required: ["text"] });
    expect([...f.commands.keys()].sort()).toEqual(["audit", "checkpoint", "cortex", "sleep"]);
    f.stop();
  });

  it("recalls into prependContext once per prompt, captures agent_end into the daily log, answers status and tools", async () => {
    const root = tempDir();
    writeFiles(root, {
      "MEMORY.md": "- The user's home lab runs Proxmox on three Intel NUCs.\n",
      "memory/2026-11-20.md":
        "# 2026-11-20\n\n- Migrated the home lab backups from rsync to restic with a Backblaze B2 bucket.\n",
    });
    const d = await startDaemon({ config: { workspaces: [{ path: root }], daemon: { debounceMs: 50, settleMs: 20 } } });
    running.push(d);
    await waitUntil(
      async () => (await d.call("memory.search", { query: "restic backups", limit: 3 })).results.length > 0,
    );
    const f = fakeApi({ socketPath: d.socket, recallTimeoutMs: 3000 });
    plugin.register(f.api);
    const ctx = { agentId: "main", sessionKey: "agent:main:main", sessionId: "s-1", workspaceDir: root };

    const event = { prompt: "How are the home lab backups done these days?", messages: [] };
    const injected = (await f.fire("before_prompt_build", event, ctx)).filter(
      (r): r is { prependContext: string } => !!r,
    );
    expect(injected).toHaveLength(1);
    expect(injected[0]!.prependContext).toMatch(/^<cortex_memories>\n\[NOTE: The following are recalled memories/);
    expect(injected[0]!.prependContext).toContain("restic");
    // MEMORY.md is in OpenClaw's system prompt already: not recalled again (unless recallCurated).
    const curated = await f.fire("before_prompt_build", { prompt: "Which machines does the home lab run on?" }, ctx);
    expect(JSON.stringify(curated)).not.toContain("Proxmox");
    // A heartbeat is nobody asking: no recall.
    expect(await f.fire("before_prompt_build", event, { ...ctx, trigger: "heartbeat" })).toEqual([undefined]);

    // agent_end → the daily log, searchable.
    const messages = [
      {
        role: "user",
        content: [
          {
            type: "text",
            text: `${injected[0]!.prependContext}\n\nSet up a weekly restore test for the restic repository.`,
          },
        ],
      },
      {
        role: "assistant",
        content: [{ type: "toolCall", id: "t1", name: "exec", arguments: { command: "crontab -l" } }],
      },
      { role: "toolResult", content: [{ type: "text", text: "no crontab for user" }] },
      {
        role: "assistant",
        content: [
          {
            type: "text",
            text: "Added a Sunday 04:00 cron job that restores a random snapshot to /tmp/restore-test and checks its checksums.",
          },
        ],
      },
    ];
    // agent_end returns at once: the capture is queued and delivered in the background.
    expect(await f.fire("agent_end", { messages, success: true, durationMs: 1200, runId: "r1" }, ctx)).toEqual([
      undefined,
    ]);
    const log = join(root, "memory", `${localDate()}.md`);
    await waitUntil(() => existsSync(log) && readFileSync(log, "utf8").includes("restore test"));
    const written = readFileSync(log, "utf8");
    // The tool's result is in the entry (bounded), the tool call's arguments are not.
    expect(written).toMatch(
      /- \[session s-1 \d\d:\d\d\] User: Set up a weekly restore test for the restic repository\. — Assistant: \[tool: no crontab for user\] Added a Sunday 04:00 cron job/,
    );
    expect(written).not.toContain("cortex_memories");
    expect(written).not.toContain("crontab -l");
    // Searchable once the daemon has indexed it (it answers the capture after indexing).
    await waitUntil(async () => (await f.status()).payload.retryQueuePending === 0);
    expect((await d.call("memory.search", { query: "weekly restore test cron", limit: 3 })).results[0]?.path).toBe(
      `memory/${localDate()}.md`,
    );
    // The next agent_end of the session (the whole history again, plus a turn) adds only the new turn.
    await f.fire(
      "agent_end",
      {
        messages: [...messages, { role: "user", content: "thanks" }, { role: "assistant", content: "Anytime!" }],
        success: true,
      },
      ctx,
    );
    await waitUntil(async () => (await f.status()).payload.retryQueuePending === 0);
    expect(readFileSync(log, "utf8")).toBe(written);

    const st = await f.status();
    expect(st.ok).toBe(true);
    expect(st.payload).toMatchObject({
      healthy: true,
      version: expect.any(String),
      retryQueuePending: 0,
      recallMetrics: { count: expect.any(Number) },
      config: { autoRecall: true, autoCapture: true },
    });
    expect(st.payload.knowledgeState).toMatchObject({ hasMemories: true });

    const saved = await f.tools.get("cortex_save_memory")!.execute("call-1", {
      text: "The restic repository password is in 1Password under 'homelab-restic'",
      tags: ["homelab"],
    });
    expect(text(saved)).toMatch(/^Saved to memory\/\d{4}-\d\d-\d\d\.md#L\d+\.$/);
    const found = await f.tools
      .get("cortex_search_memory")!
      .execute("call-2", { query: "restic repository password 1Password", limit: 3 });
    const parsed = JSON.parse(text(found)) as { results: { citation: string; snippet: string }[] };
    expect(parsed.results[0]!.citation).toMatch(/^memory\/\d{4}-\d\d-\d\d\.md#L\d+-L\d+$/);
    expect(parsed.results[0]!.snippet).toContain("homelab-restic");
    expect(found.details).toEqual(parsed);
    f.stop();
  });

  it("with recallCurated, private conversations (DM threads too) recall MEMORY.md and group chats never do", async () => {
    const root = tempDir();
    writeFiles(root, {
      "MEMORY.md": "- The user's home lab runs Proxmox on three Intel NUCs.\n",
      "memory/2026-11-20.md": "# 2026-11-20\n\n- Bought a UPS for the home lab rack.\n",
    });
    const d = await startDaemon({ config: { workspaces: [{ path: root }], daemon: { debounceMs: 50, settleMs: 20 } } });
    running.push(d);
    await waitUntil(
      async () => (await d.call("memory.search", { query: "Proxmox NUCs", limit: 3 })).results.length > 0,
    );
    const f = fakeApi({ socketPath: d.socket, recallTimeoutMs: 3000, recallCurated: true });
    plugin.register(f.api);
    const ask = (ctx: object) =>
      f.fire("before_prompt_build", { prompt: "Which machines does the home lab run on?" }, ctx).then(JSON.stringify);
    expect(await ask({ sessionKey: "agent:main:main" })).toContain("Proxmox");
    expect(
      await ask({
        sessionKey: "agent:main:slack:direct:U123ABC:thread:1700000000.0001",
        channel: "slack",
        chatId: "D999",
        senderId: "U123ABC",
      }),
    ).toContain("Proxmox");
    expect(
      await ask({
        sessionKey: "agent:main:telegram:group:-100123",
        channel: "telegram",
        chatId: "-100123",
        senderId: "42",
      }),
    ).not.toContain("Proxmox");
    expect(
      await ask({
        sessionKey: "agent:main:discord:channel:998877:thread:5",
        channel: "discord",
        chatId: "998877",
        senderId: "42",
      }),
    ).not.toContain("Proxmox");
    f.stop();
  });

  it("tells private from group conversations by OpenClaw's context fields", () => {
    expect(scopeFor("auto", { sessionKey: "agent:main:main" })).toBe("private");
    expect(
      scopeFor("auto", {
        sessionKey: "agent:main:slack:direct:U1:thread:1700000000.1",
        channel: "slack",
        chatId: "D1",
        senderId: "U1",
      }),
    ).toBe("private");
    expect(
      scopeFor("auto", {
        sessionKey: "agent:main:telegram:direct:42",
        channel: "telegram",
        chatId: "42",
        senderId: "42",
      }),
    ).toBe("private");
    expect(
      scopeFor("auto", {
        sessionKey: "agent:main:telegram:group:-100123",
        channel: "telegram",
        chatId: "-100123",
        senderId: "42",
      }),
    ).toBe("group");
    expect(scopeFor("auto", { sessionKey: "agent:main:discord:channel:9:thread:5" })).toBe("group");
    // No kind in the key: the sender's own chat is private, any other chat a group.
    expect(
      scopeFor("auto", {
        sessionKey: "agent:main:x1",
        channel: "whatsapp",
        chatId: "+15550001",
        senderId: "+15550001",
      }),
    ).toBe("private");
    expect(
      scopeFor("auto", {
        sessionKey: "agent:main:x2",
        channel: "whatsapp",
        chatId: "120363@g.us",
        senderId: "+15550001",
      }),
    ).toBe("group");
    expect(scopeFor("group", { sessionKey: "agent:main:main" })).toBe("group");
  });

  it("reads the kind at its place in the key and fails closed: look-alike segments later in the key change nothing", () => {
    // Each came out private before (the private pattern was tried on every segment, before the group one).
    expect(scopeFor("auto", { sessionKey: "agent:main:matrix:group:!abc:dm" })).toBe("group");
    expect(scopeFor("auto", { sessionKey: "agent:main:irc:channel:private" })).toBe("group");
    expect(scopeFor("auto", { sessionKey: "agent:main:discord:channel:42:direct:1" })).toBe("group");
    // An account segment before the kind (dmScope per-account-channel-peer) and the per-peer form.
    expect(scopeFor("auto", { sessionKey: "agent:main:telegram:acct1:direct:42" })).toBe("private");
    expect(scopeFor("auto", { sessionKey: "agent:main:direct:42" })).toBe("private");
    // No kind where it belongs, nothing else saying it is the sender's own chat: a group.
    expect(scopeFor("auto", { sessionKey: "agent:main:cron:nightly" })).toBe("group");
    expect(scopeFor("auto", { sessionKey: "agent:main:x3" })).toBe("group");
    expect(scopeFor("auto", {})).toBe("group");
  });

  it("validates its config with the SDK's schema object: unknown keys and wrong types are named", () => {
    expect(configSchema.safeParse(undefined)).toMatchObject({ success: true });
    expect(configSchema.safeParse({ recallTimeoutMs: 500, scope: "group" })).toMatchObject({ success: true });
    const bad = configSchema.safeParse({ recallHook: "before_agent_start", recallTimeoutMs: 5, autoRecall: "yes" });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((i: { path: unknown[] }) => i.path[0]).sort()).toEqual([
      "autoRecall",
      "recallHook",
      "recallTimeoutMs",
    ]);
  });

  it("never breaks the agent when cortexd is down: no context, quick; tools say so; status is unhealthy", async () => {
    const f = fakeApi({ socketPath: join(tempDir(), "none.sock") });
    plugin.register(f.api);
    const t0 = performance.now();
    const r = await f.fire(
      "before_prompt_build",
      { prompt: "anything about backups?" },
      { sessionKey: "agent:main:main" },
    );
    expect(r).toEqual([undefined]);
    expect(performance.now() - t0).toBeLessThan(250);
    await expect(
      f.fire(
        "agent_end",
        {
          messages: [
            { role: "user", content: "hello there, a long enough message" },
            { role: "assistant", content: "hi, and a long enough answer too" },
          ],
          success: true,
        },
        {},
      ),
    ).resolves.toBeDefined();
    // Tools throw (OpenClaw's tool contract), saying what to do.
    await expect(f.tools.get("cortex_search_memory")!.execute("c", { query: "x" })).rejects.toThrow(
      /cortexd is not available .*start it with `cortexd start`/,
    );
    const st = await f.status();
    // The capture waits in the queue for the daemon.
    expect(st).toMatchObject({ ok: true, payload: { healthy: false, retryQueuePending: 1 } });
    f.stop();
  });

  it("keeps capture payloads small: text only, images as markers, at most 256 KB", () => {
    const huge = "x".repeat(50_000);
    const w = captureWindow([
      ...Array.from({ length: 100 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `${i} ${huge}` })),
      {
        role: "user",
        content: [
          { type: "image", data: "iVBORw0KGgo".repeat(10_000) },
          { type: "text", text: "what is this?" },
        ],
      },
      { role: "tool", content: "result" },
    ]);
    expect(Buffer.byteLength(JSON.stringify(w))).toBeLessThanOrEqual(256 * 1024);
    expect(JSON.stringify(w)).not.toContain("iVBORw0KGgo");
    expect(w[w.length - 1]).toEqual({
      role: "user",
      content: [{ type: "image" }, { type: "text", text: "what is this?" }],
    });
  });
});
