import { existsSync, readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import plugin, {
  CLI_DESCRIPTORS,
  captureWindow,
  configSchema,
  createCaptureQueue,
  createGate,
  DaemonUnavailableError,
} from "../integrations/openclaw/index.js";
import { localDate } from "../src/memory-files/entry.js";
import { startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

const running: TestDaemon[] = [];
afterEach(async () => {
  for (const d of running.splice(0)) await d.stop();
});

const down = () => new DaemonUnavailableError("no-socket", "cortexd is not running (no socket at /x)");
const slow = () => new DaemonUnavailableError("timeout", "cortexd did not answer memory.recall within 250 ms");

const topics = [
  ["Which port does the staging Postgres listen on?", "Staging Postgres listens on port 6432 behind pgbouncer."],
  ["Who owns the billing reconciliation cron job?", "Marta Kowalski owns the nightly billing reconciliation job."],
  [
    "What colour scheme did we pick for the dashboard?",
    "The dashboard uses the Solarized light palette with teal accents.",
  ],
];

describe("OpenClaw plugin parts", () => {
  it("cold-start gate: 3 connection failures close recall for 30 s; timeouts never trip it", () => {
    let now = 1_000_000;
    const gate = createGate({ clock: () => now });
    for (let i = 0; i < 10; i++) gate.failure(slow());
    expect(gate.allow()).toBe(true);
    gate.failure(down());
    gate.failure(down());
    expect(gate.allow()).toBe(true);
    gate.failure(down());
    expect(gate.allow()).toBe(false); // the 4th prompt does not try
    expect(gate.state()).toMatchObject({ open: true, consecutiveFailures: 3, retryInMs: 30_000, skippedRecalls: 1 });
    now += 29_999;
    expect(gate.allow()).toBe(false);
    now += 1;
    expect(gate.allow()).toBe(true); // 30 s later it tries again
    gate.success();
    expect(gate.state()).toMatchObject({ open: false, consecutiveFailures: 0 });
    // A copy of the error class from another load of the module (the gateway loads plugins more than once) counts too.
    const copy = Object.assign(new Error("cortexd is not running"), {
      name: "DaemonUnavailableError",
      reason: "no-socket",
    });
    for (let i = 0; i < 3; i++) gate.failure(copy);
    expect(gate.allow()).toBe(false);
  });

  it("in the plugin, the 4th prompt after 3 refused connects does not connect, and cortex.status says so", async () => {
    const dir = tempDir("cortexd-gate-");
    const socket = join(dir, "d.sock");
    let connects = 0;
    // A socket that takes connections and drops them at once: a hard failure every time.
    const srv = createServer((c) => {
      connects++;
      c.destroy();
    });
    await new Promise<void>((r) => srv.listen(socket, r));
    const methods = new Map<string, (a: { respond: (ok: boolean, p?: unknown) => void }) => unknown>();
    const hooks = new Map<string, (e: unknown, c: unknown) => unknown>();
    plugin.register({
      pluginConfig: { socketPath: socket },
      runtime: { state: { resolveStateDir: () => dir } },
      on: (n, h) => hooks.set(n, h),
      registerGatewayMethod: (n, h) => methods.set(n, h),
    });
    const prompt = (i: number) =>
      hooks.get("before_prompt_build")!(
        { prompt: `question number ${i} about backups` },
        { sessionKey: "agent:main:main" },
      );
    for (let i = 1; i <= 3; i++) expect(await prompt(i)).toBeUndefined();
    const tried = connects;
    expect(tried).toBeGreaterThanOrEqual(3);
    const status = () =>
      new Promise<Record<string, any>>((r) => void methods.get("cortex.status")!({ respond: (_ok, p) => r(p as any) }));
    expect(await prompt(4)).toBeUndefined();
    expect(connects).toBe(tried); // the 4th prompt did not try
    const gate = (await status()).coldStartGate;
    // status itself tried the daemon (a person asked), and failed: the gate stays shut for recall.
    expect(gate).toMatchObject({ open: true, skippedRecalls: 1 });
    await new Promise<void>((r) => srv.close(() => r()));
  });

  it("the capture queue: persisted 0600, backs off while cortexd is down, survives a restart, delivers each turn once", async () => {
    const root = tempDir();
    writeFiles(root, { "MEMORY.md": "# Memory\n" });
    const d = await startDaemon({ config: { workspaces: [{ path: root }], daemon: { debounceMs: 50, settleMs: 20 } } });
    running.push(d);
    const file = join(tempDir("cortexd-q-"), "plugin-state", "cortexd", "capture-queue.json");
    let up = false;
    let attempts = 0;
    const send = async (method: string, params: Record<string, unknown>) => {
      attempts++;
      if (!up) throw down();
      return d.call(method as "memory.capture", params as never);
    };
    const turn = (i: number) => [
      { role: "user", content: topics[i - 1]![0] },
      { role: "assistant", content: topics[i - 1]![1] },
    ];
    const q1 = createCaptureQueue({ file, send, baseDelayMs: 20, maxDelayMs: 200 });
    let history: unknown[] = [];
    for (let i = 1; i <= 3; i++) {
      history = [...history, ...turn(i)];
      q1.enqueue("memory.capture", { session_id: "oc-q", messages: history });
    }
    await waitUntil(() => attempts >= 3);
    expect(q1.pending()).toBe(3);
    await waitUntil(() => existsSync(file) && JSON.parse(readFileSync(file, "utf8")).items.length === 3);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await q1.close(); // the gateway stops with captures pending

    up = true;
    const q2 = createCaptureQueue({ file, send, baseDelayMs: 20, maxDelayMs: 200 });
    await waitUntil(() => q2.pending() === 0, 20_000);
    const log = readFileSync(join(root, "memory", `${localDate()}.md`), "utf8");
    for (const [q] of topics) expect(log.split(q!).length - 1).toBe(1);
    expect(log.match(/^- \[session oc-q /gm)).toHaveLength(3);
    await q2.close();
    expect(JSON.parse(readFileSync(file, "utf8")).items).toEqual([]);
  });

  it("accepts the Cortex plugin's README config (its keys), warning once about those that cannot apply", () => {
    const cortex = {
      apiKey: "your-cortex-api-key",
      autoRecall: true,
      autoCapture: true,
      recallLimit: 20,
      recallTimeoutMs: 60000,
      toolTimeoutMs: 60000,
      userId: "my-team-shared-id",
      recallTopK: 10,
      recallQueryType: "combined",
      recallProfile: "auto",
      recallReferenceDate: "2026-11-20",
      captureMaxPayloadBytes: 262144,
      captureFilter: true,
      auditLog: false,
      dedupeWindowMinutes: 30,
      noveltyThreshold: 0.85,
      namespace: "openclaw",
      fileSync: true,
      transcriptSync: true,
    };
    expect(configSchema.safeParse(cortex).success).toBe(true);
    const bad = configSchema.safeParse({ ...cortex, recallHook: true });
    expect(bad.error!.issues.map((i) => i.path[0])).toEqual(["recallHook"]);
    const logs: string[] = [];
    plugin.register({
      pluginConfig: cortex,
      runtime: { state: { resolveStateDir: () => tempDir() } },
      logger: { warn: (m) => logs.push(m) },
      on: () => {},
    });
    expect(logs).toEqual([
      expect.stringMatching(
        /^cortexd: Cortex plugin settings ignored: apiKey, userId, recallProfile, recallQueryType, dedupeWindowMinutes, noveltyThreshold \(/,
      ),
    ]);
  });

  it("captures a tool's result, bounded and readable, also through OpenClaw's tool-search bridge; heartbeats and terminal noise are filtered", () => {
    const inner = JSON.stringify({
      results: [
        {
          path: "memory/2026-11-20.md",
          score: 0.9,
          snippet: `- Deploy freeze starts on December 18. ${"x".repeat(5000)}`,
        },
      ],
    });
    const bridged = JSON.stringify({
      tool: { id: "openclaw:cortexd:cortex_search_memory", name: "cortex_search_memory", source: "openclaw" },
      result: { content: [{ type: "text", text: inner }] },
    });
    const out = captureWindow([
      { role: "user", content: "Please look up the deploy freeze in memory." },
      { role: "assistant", content: [{ type: "toolCall", name: "tool_call", arguments: {} }] },
      { role: "toolResult", toolName: "tool_call", content: [{ type: "text", text: bridged }] },
      {
        role: "assistant",
        content: "\u001b[32mMemory says\u001b[0m the freeze starts on December 18.\ntokens: 1,234 / 200k",
      },
      { role: "user", content: "Read HEARTBEAT.md if it exists" },
      { role: "assistant", content: "HEARTBEAT_OK" },
    ]) as { role: string; content: { text: string }[] }[];
    expect(out).toHaveLength(2);
    const answer = out[1]!.content.map((p) => p.text).join("");
    expect(answer).toMatch(
      /^\[tool cortex_search_memory: - Deploy freeze starts on December 18\. x+…\] Memory says the freeze starts on December 18\.$/,
    );
    expect(answer.length).toBeLessThan(400);
  });

  it("declares `openclaw cortex` in the manifest as it registers it (OpenClaw routes the command before loading the plugin)", () => {
    const manifest = JSON.parse(
      readFileSync(resolve(import.meta.dirname, "../integrations/openclaw/openclaw.plugin.json"), "utf8"),
    ) as { cliCommands: unknown };
    expect(manifest.cliCommands).toEqual(CLI_DESCRIPTORS);
  });
});
