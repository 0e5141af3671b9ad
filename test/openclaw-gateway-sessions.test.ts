import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { AuditEntry } from "../src/audit/audit-log.js";
import { localDate } from "../src/memory-files/entry.js";
import { startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { runCliAsync } from "./helpers/cli.js";
import { runHook } from "./helpers/hooks.js";
import { messageText, startOpenAiStub, type ChatRequest, type OpenAiStub } from "./helpers/openai-stub.js";
import {
  findOpenClaw,
  killGroup,
  setUpStubGateway,
  startGateway,
  type Gateway,
  type OpenClawHost,
} from "./helpers/openclaw.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

/**
 * The plugin's session side in a real OpenClaw gateway (the pinned package, Node 24, a stub model on
 * 127.0.0.1, a real cortexd): recovery after a SIGKILLed gateway with the last checkpoint, none after
 * /sleep, none across hosts (a real Claude Code hook process) or scopes (a group chat); commands that
 * never reach the model; capture that waits out a stopped daemon and a restarted gateway and lands
 * once; the cold-start gate in cortex.status; a tool's result in the captured entry; the Cortex
 * plugin's example config accepted with one warning; `openclaw cortex …` as real CLI processes.
 */

const PLUGIN_DIR = resolve(import.meta.dirname, "../integrations/openclaw");
const host: OpenClawHost | null = findOpenClaw();
const ci = !!process.env.CI;

const FREEZE = "Deploy freeze for the payments service starts on December 18 and lasts two weeks.";
/** The Cortex plugin's README example config (its `apiKey` cannot apply to a local daemon). */
const CORTEX_EXAMPLE = {
  apiKey: "your-cortex-api-key",
  autoRecall: true,
  autoCapture: true,
  recallLimit: 20,
  recallTimeoutMs: 60000,
  toolTimeoutMs: 60000,
};

const seen = (r: ChatRequest) => r.messages.map(messageText).join("\n");
const lastUser = (r: ChatRequest) => messageText(r.messages.filter((m) => m.role === "user").pop());
/** What the model was asked, for an assertion's message. */
const asked = (rs: ChatRequest[]) => rs.map((r) => lastUser(r).slice(-200)).join("\n---\n");

/** Every file under dir with its sha256 (what `reset` must leave as it was). */
function hashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = createHash("sha256").update(readFileSync(p)).digest("hex");
    }
  };
  walk(dir);
  return out;
}

// The private sessions use real private keys (`agent:main:direct:<peer>`, dmScope per-peer): a key of
// no known kind such as `agent:main:alpha` is "unknown" to OpenClaw's own classifier
// (deriveSessionChatTypeFromKey) and reads as a group here (fails closed), which never receives a
// private session's recovery note.
describe.skipIf(!host && !ci)("OpenClaw plugin sessions, commands and capture in a real gateway", () => {
  if (!host) {
    it("has OpenClaw installed (CI runs scripts/ci/install-openclaw.sh first)", () => {
      throw new Error("OpenClaw is not installed: run scripts/ci/install-openclaw.sh (CI must, before npm test)");
    });
    return;
  }
  let gateway: Gateway | null = null;
  let daemon: TestDaemon | null = null;
  let stub: OpenAiStub | null = null;
  let gatewayLog = "";
  afterAll(async () => {
    if (gateway && gatewayLog) writeFileSync(gatewayLog, gateway.output());
    await gateway?.stop();
    await daemon?.stop();
    await stub?.close();
  });

  it(
    "recovers after a SIGKILL with the last checkpoint, not after /sleep, never across hosts or scopes; commands bypass the model; capture is never lost; openclaw cortex works",
    { timeout: 1_500_000 },
    async () => {
      const root = tempDir("cortexd-ocs-");
      const home = join(root, "home");
      const ws = join(root, "workspace");
      mkdirSync(home, { recursive: true });
      writeFiles(ws, {
        "MEMORY.md": "# Memory\n\n- The user prefers short answers.\n",
        "memory/2026-11-20.md": `# 2026-11-20\n\n- ${FREEZE}\n`,
      });
      const daemonConfig = { workspaces: [{ path: ws }], daemon: { debounceMs: 50, settleMs: 20 } };
      daemon = await startDaemon({ config: daemonConfig });
      await waitUntil(
        async () =>
          (await daemon!.call("memory.search", { query: "deploy freeze payments", limit: 3 })).results.length > 0,
        30_000,
      );

      const dump = join(root, "model-requests.json");
      stub = await startOpenAiStub((body) => {
        writeFileSync(dump, JSON.stringify(stub?.requests ?? [body], null, 1));
        const toolResult = body.messages.filter((m) => m.role === "tool").pop();
        const user = body.messages
          .filter((m) => m.role === "user")
          .map(messageText)
          .join("\n");
        if (toolResult)
          return {
            text: messageText(toolResult).includes("December 18")
              ? "Memory says the payments deploy freeze starts on December 18 and lasts two weeks."
              : "Memory had nothing on that.",
          };
        if (user.includes("look up the deploy freeze")) {
          const direct = body.tools?.some((t) => t.function.name === "cortex_search_memory");
          const args = { query: "deploy freeze payments service" };
          return {
            toolCall: direct
              ? { name: "cortex_search_memory", arguments: args }
              : { name: "tool_call", arguments: { id: "cortex_search_memory", args } },
          };
        }
        // Each answer says what it answers (cortexd skips a capture that repeats a recent one).
        const question = messageText(body.messages.filter((m) => m.role === "user").pop())
          .replace(/<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>[\s\S]*?(<<<END_OPENCLAW_INTERNAL_CONTEXT>>>|$)/g, " ")
          .replace(/<cortex_(\w+)>[\s\S]*?<\/cortex_\1>/g, " ")
          .replace(/\s+/g, " ")
          .trim()
          .slice(0, 160);
        return { text: `Done. I have taken care of it as asked: "${question}"` };
      });

      // The user's gateway before the plugin: a local gateway, a model, a workspace.
      const { port, token, env, oc, ok } = await setUpStubGateway(host, {
        home,
        root,
        workspace: ws,
        stubUrl: stub.url,
        socket: daemon.socket,
        timeoutMs: 240_000,
      });
      const turn = async (key: string, message: string) => {
        const t0 = performance.now();
        const r = await ok(["agent", "--session-key", key, "-m", message, "--json"]);
        return { ...r, ms: performance.now() - t0 };
      };
      /** The first request that carried the marker (a later one repeats it in its history). */
      /**
       * A chat command, as a chat client sends it (chat.send: the agent CLI runs turns, not commands);
       * resolves with the reply the gateway records for it.
       */
      let sent = 0;
      const command = async (key: string, message: string) => {
        const idempotencyKey = `cmd-${++sent}`;
        const params = { sessionKey: key, message, idempotencyKey };
        await ok(["gateway", "call", "chat.send", "--params", JSON.stringify(params), "--json"]);
        let reply = "";
        await waitUntil(
          async () => {
            const h = await ok([
              "gateway",
              "call",
              "chat.history",
              "--params",
              JSON.stringify({ sessionKey: key, limit: 4 }),
              "--json",
            ]);
            const msgs =
              (
                JSON.parse(h.stdout.slice(h.stdout.indexOf("{"))) as {
                  messages?: { role: string; content: unknown; idempotencyKey?: string }[];
                }
              ).messages ?? [];
            const at = msgs.findIndex((m) => m.role === "user" && m.idempotencyKey === `${idempotencyKey}:user`);
            const answer = at >= 0 ? msgs.slice(at + 1).find((m) => m.role === "assistant") : undefined;
            reply = answer ? messageText(answer as never) : "";
            return reply !== "";
          },
          120_000,
          500,
        );
        return reply;
      };
      const requestFor = (marker: string) => stub!.requests.find((r) => seen(r).includes(marker));
      const today = join(ws, "memory", `${localDate()}.md`);
      const log = () => (existsSync(today) ? readFileSync(today, "utf8") : "");
      const count = (s: string, sub: string) => s.split(sub).length - 1;

      await ok(["plugins", "install", "-l", PLUGIN_DIR, "--force", "--accept-capabilities"]);
      // The Cortex plugin's example config, pasted as is (plus the conversation-access switch).
      const conf = JSON.parse(readFileSync(env.OPENCLAW_CONFIG_PATH!, "utf8")) as {
        plugins: { entries: Record<string, Record<string, unknown>> };
      };
      conf.plugins.entries.cortexd = {
        ...conf.plugins.entries.cortexd,
        hooks: { allowConversationAccess: true },
        config: CORTEX_EXAMPLE,
      };
      writeFileSync(env.OPENCLAW_CONFIG_PATH!, JSON.stringify(conf));
      const inspect = await ok(["plugins", "inspect", "cortexd", "--runtime", "--json"]);
      const report = JSON.parse(inspect.stdout.slice(inspect.stdout.indexOf("{"))) as {
        plugin: { status: string };
        typedHooks: { name: string }[];
        diagnostics: unknown[];
      };
      expect(report.plugin.status).toBe("loaded");
      expect(report.diagnostics).toEqual([]);
      console.log(`typed hooks: ${report.typedHooks.map((h) => h.name).join(", ")}; model requests: ${dump}`);

      gateway = await startGateway(host, port, token, env, root);
      gatewayLog = join(root, "gateway.log");
      console.log(`gateway output: ${gatewayLog}`);
      await waitUntil(
        () => /cortexd connected — [\d,]+ memories, [\d,]+ sessions \(\w+\), tier \d/.test(gateway!.output()),
        180_000,
        250,
      );
      // One warning line for the config's inapplicable key, naming it.
      expect(gateway.output().match(/Cortex plugin settings ignored: apiKey \(/g)).toHaveLength(1);

      // --- Session alpha: a turn, /checkpoint (twice), then the gateway is killed.
      await turn(
        "agent:main:direct:alpha",
        "Plan the migration of the billing tables to the new cluster, starting with invoices.",
      );
      expect(requestFor("Plan the migration of the billing tables"), asked(stub.requests)).toBeDefined();
      let before = stub.requests.length;
      expect(await command("agent:main:direct:alpha", "/checkpoint")).toMatch(
        /^Checkpoint saved to memory\/\d{4}-\d\d-\d\d\.md#L\d+\.$/,
      );
      expect(
        await command("agent:main:direct:alpha", "/checkpoint Billing migration: invoices copied, refunds table next"),
      ).toMatch(/^Checkpoint saved to memory\/\d{4}-\d\d-\d\d\.md#L\d+\.$/);
      expect(stub.requests.length, "a command reached the model").toBe(before);
      expect(log()).toContain("Billing migration: invoices copied, refunds table next");
      expect(log()).toMatch(/Recent requests: "Plan the migration of the billing tables/);

      killGroup(gateway.child, "SIGKILL");
      await gateway.stop();
      gateway = await startGateway(host, port, token, env, root);

      // --- Session beta: its first request holds the recovery note with the last checkpoint.
      await turn("agent:main:direct:beta", "Where did we leave off with the database work?");
      const first = requestFor("Where did we leave off with the database work?");
      expect(first, "the model never got beta's question").toBeDefined();
      const recovery = /<cortex_recovery>[\s\S]*?<\/cortex_recovery>/.exec(seen(first!))?.[0] ?? "";
      expect(recovery).toContain("Last checkpoint");
      expect(recovery).toContain("Billing migration: invoices copied, refunds table next");
      // Once: beta's next turn has none of its own.
      await turn("agent:main:direct:beta", "Also draft the rollback steps for the refunds table.");
      expect(count(JSON.stringify(requestFor("draft the rollback steps")), "<cortex_recovery>")).toBeLessThanOrEqual(1);

      // /sleep: a clean end; the next session has no note.
      before = stub.requests.length;
      expect(await command("agent:main:direct:beta", "/sleep")).toContain("Session ended cleanly");
      expect(stub.requests.length, "/sleep reached the model").toBe(before);
      await turn("agent:main:direct:gamma", "Summarise the open pull requests for the release.");
      expect(seen(requestFor("Summarise the open pull requests")!)).not.toContain("<cortex_recovery>");

      // gamma ends uncleanly (no /sleep); a group chat never gets its note, nor does Claude Code.
      await turn("agent:main:telegram:group:-100123", "Group question: when is the team offsite planned?");
      expect(seen(requestFor("when is the team offsite planned")!)).not.toContain("<cortex_recovery>");
      const cc = await runHook(
        "SessionStart",
        {
          session_id: "0c0c0c0c-0000-4000-8000-000000000001",
          cwd: ws,
          source: "startup",
          hook_event_name: "SessionStart",
        },
        { CORTEXD_SOCKET: daemon.socket },
      );
      expect(cc.code).toBe(0);
      // (Recent daily-log entries may be in its context: the workspace's memory is shared; a recovery note is not.)
      expect(cc.stdout).not.toContain("cortex_recovery");

      // --- A tool call: its result is in the captured entry (bounded).
      await turn("agent:main:direct:delta", "Please look up the deploy freeze in memory.");
      await waitUntil(() => /User: Please look up the deploy freeze in memory\./.test(log()), 60_000, 200);
      const entry = log()
        .split("\n")
        .find((l) => l.includes("User: Please look up the deploy freeze in memory."))!;
      expect(entry).toMatch(/Assistant: \[tool [^\]]*December 18[^\]]*\]/);
      expect(entry.length).toBeLessThan(1500);

      // --- The audit log (#30): each injection this gateway received, with the memories' paths and
      // lines, as `cortexd audit --json` lists it; /audit off stops recording, /audit on resumes.
      const audit = async () => {
        const r = await runCliAsync(["audit", "--json"], daemon!.env);
        expect(r.code, r.stderr).toBe(0);
        return (JSON.parse(r.stdout) as AuditEntry[]).filter((e) => e.client === "openclaw");
      };
      const sentToModel = stub.requests.map(seen).join("\n");
      const carried = (e: AuditEntry) =>
        e.memories.every((m) =>
          e.method === "memory.search"
            ? sentToModel.includes(`${m.path}#L${m.startLine}-L${m.endLine}`)
            : sentToModel.includes(`${m.path}:${m.startLine}-${m.endLine}:`),
        );
      const lookup = (await audit()).filter((e) => e.memories.some((m) => m.path === "memory/2026-11-20.md"));
      expect(lookup.map((e) => e.method).sort(), JSON.stringify(lookup, null, 1)).toEqual(
        expect.arrayContaining(["memory.recall", "memory.search"]),
      );
      for (const e of lookup) expect(carried(e), JSON.stringify(e)).toBe(true);
      expect(await command("agent:main:direct:delta", "/audit off")).toMatch(/^cortexd audit log off/);
      await turn("agent:main:direct:delta", "When does the payments deploy freeze end?");
      expect(await command("agent:main:direct:delta", "/audit on")).toMatch(/^cortexd audit log on/);
      await turn("agent:main:direct:delta", "Remind me when the payments deploy freeze begins.");
      expect(
        stub.requests.filter((r) => /^\/audit/.test(lastUser(r).trim())),
        "/audit reached the model",
      ).toEqual([]);
      const queries = (await audit()).map((e) => e.query ?? "");
      expect(queries.some((q) => q.includes("When does the payments deploy freeze end?"))).toBe(false);
      expect(queries.some((q) => q.includes("Remind me when the payments deploy freeze begins."))).toBe(true);
      const shown = await command("agent:main:direct:delta", "/audit");
      expect(shown).toMatch(/^cortexd audit log: on/);

      // --- The daemon stops for 3 turns: the turns do not wait; then it starts, and each lands once.
      const up = [await turn("agent:main:direct:eps", "Note one: the CDN cache TTL for images moves to 24 hours.")];
      await daemon.stop();
      const down: number[] = [];
      const asks = [
        "Note two: the staging cluster gets two more worker nodes next sprint.",
        "Note three: Grafana alerts for disk usage now page the on-call engineer.",
        "Note four: the mobile release train moves from weekly to fortnightly.",
      ];
      for (const a of asks) down.push((await turn("agent:main:direct:eps", a)).ms);
      console.log(
        `turn time: daemon up ${up[0]!.ms.toFixed(0)} ms, down ${down.map((m) => m.toFixed(0)).join(", ")} ms`,
      );
      expect(Math.max(...down)).toBeLessThan(up[0]!.ms + 15_000); // loose: CLI start-up dominates both
      const st = await ok(["gateway", "call", "cortex.status", "--json"]);
      const status = JSON.parse(st.stdout.slice(st.stdout.indexOf("{"))) as Record<string, any>;
      console.log(
        `cortex.status with the daemon down: ${JSON.stringify({ gate: status.coldStartGate, queue: status.captureQueue })}`,
      );
      expect(status.healthy).toBe(false);
      expect(status.coldStartGate).toMatchObject({ open: true });
      expect(status.retryQueuePending).toBeGreaterThanOrEqual(1);
      daemon = await startDaemon({ home: daemon.home });
      await ok(["gateway", "call", "cortex.status", "--json"]); // a success: the queue is tried now
      const landed = async (texts: string[]) => {
        try {
          await waitUntil(() => texts.every((a) => log().includes(a)), 300_000, 250);
        } catch {
          const now = await oc(["gateway", "call", "cortex.status", "--json"]);
          throw new Error(`not all captured:\n${log()}\nstatus: ${now.stdout.slice(-1500)}`);
        }
      };
      await landed(asks);
      for (const a of [...asks, "Note one: the CDN cache TTL"]) expect(count(log(), a), a).toBe(1);

      // --- The gateway restarts with a non-empty queue: delivered after the restart.
      await daemon.stop();
      await turn("agent:main:direct:eps", "Note five: the VPN certificates are renewed on the first of each month.");
      await gateway.stop();
      daemon = await startDaemon({ home: daemon.home });
      gateway = await startGateway(host, port, token, env, root);
      await landed(["Note five: the VPN certificates"]);
      expect(count(log(), "Note five: the VPN certificates")).toBe(1);
      const queueFile = join(env.OPENCLAW_STATE_DIR!, "plugin-state", "cortexd", "capture-queue.json");
      expect(statSync(queueFile).mode & 0o777).toBe(0o600);
      await gateway.stop();
      gateway = null;

      // --- openclaw cortex …, as real CLI processes.
      const status2 = await ok(["cortex", "status"]);
      expect(status2.stdout).toMatch(/cortexd \S+: healthy/);
      expect(status2.stdout).toMatch(/recall p50 \d+ ms, p95 \d+ ms, p99 \d+ ms/);
      const memories = await ok(["cortex", "memories"]);
      expect(memories.stdout).toMatch(/memories: \d+ files, \d+ chunks/);
      expect(memories.stdout).toMatch(/sessions: \d+; maturity: \w+/);
      const search = await ok(["cortex", "search", "deploy", "freeze", "payments"]);
      expect(search.stdout).toMatch(/memory\/2026-11-20\.md#L\d+-L\d+ .*December 18/);
      const config = await ok(["cortex", "config"]);
      expect(config.stdout).toContain('"toolTimeoutMs": 60000');
      expect(config.stdout).toContain('"ignoredCortexKeys"');
      const pair = await ok(["cortex", "pair"]);
      expect(pair.stdout).toContain("no meaning");
      const files = hashes(ws);
      const reset = await ok(["cortex", "reset", "--yes"]);
      expect(reset.stdout).toMatch(/Index rebuilt from the memory files .*session state cleared/);
      expect(hashes(ws)).toEqual(files);
    },
  );
});
