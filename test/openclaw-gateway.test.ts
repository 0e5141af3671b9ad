import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { localDate } from "../src/memory-files/entry.js";
import { startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { messageText, startOpenAiStub, type ChatRequest, type OpenAiStub } from "./helpers/openai-stub.js";
import { findOpenClaw, setUpStubGateway, startGateway, type Gateway, type OpenClawHost } from "./helpers/openclaw.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

/**
 * The plugin inside a real OpenClaw gateway (the package scripts/ci/install-openclaw.sh pins, on
 * Node 24): installed and configured exactly as integrations/openclaw/README.md says, a real cortexd
 * daemon on the agent's workspace, and a stub OpenAI-compatible model on 127.0.0.1 that records what
 * the gateway sends it. Skipped only when OpenClaw is not installed and CI is unset.
 */

const PLUGIN_DIR = resolve(import.meta.dirname, "../integrations/openclaw");
const host: OpenClawHost | null = findOpenClaw();
const ci = !!process.env.CI;

const PLANTED = "The staging database password rotation happens every second Tuesday, and Priya Raman runs it.";
const FREEZE = "Deploy freeze for the payments service starts on December 18 and lasts two weeks.";
const CURATED = "The user's favourite editor is Helix with the gruvbox theme.";

/** The whole request as the model saw it (system prompt, messages, tool results). */
const seen = (r: ChatRequest) => r.messages.map(messageText).join("\n");

describe.skipIf(!host && !ci)("OpenClaw plugin in a real gateway (openclaw, Node 24, stub model)", () => {
  if (!host) {
    it("has OpenClaw installed (CI runs scripts/ci/install-openclaw.sh first)", () => {
      throw new Error("OpenClaw is not installed: run scripts/ci/install-openclaw.sh (CI must, before npm test)");
    });
    return;
  }
  let gateway: Gateway | null = null;
  let daemon: TestDaemon | null = null;
  let stub: OpenAiStub | null = null;
  afterAll(async () => {
    await gateway?.stop();
    await daemon?.stop();
    await stub?.close();
  });

  it(
    "loads with no diagnostics, answers cortex.status, recalls into the prompt, captures, serves its search tool, survives a stopped daemon",
    { timeout: 600_000 },
    async () => {
      const root = tempDir("cortexd-oc-");
      const home = join(root, "home");
      const ws = join(root, "workspace");
      mkdirSync(home, { recursive: true });
      writeFiles(ws, {
        "MEMORY.md": `# Memory\n\n- ${CURATED}\n`,
        "memory/2026-11-20.md": `# 2026-11-20\n\n- ${PLANTED}\n- ${FREEZE}\n`,
      });
      daemon = await startDaemon({ config: { workspaces: [{ path: ws }], daemon: { debounceMs: 50, settleMs: 20 } } });
      await waitUntil(
        async () =>
          (await daemon!.call("memory.search", { query: "staging database password rotation", limit: 3 })).results
            .length > 0,
        30_000,
      );

      // The model: a tool call to cortex_search_memory when asked to look something up, text otherwise.
      // OpenClaw's default Tool Search defers plugin tools: the model reaches them through its
      // tool_call bridge ({id: tool name, args}), as a real model does by default.
      const dump = join(root, "model-requests.json");
      stub = await startOpenAiStub((body) => {
        writeFileSync(dump, JSON.stringify(stub?.requests ?? [body], null, 1)); // to read when an assertion fails
        const toolResult = body.messages.filter((m) => m.role === "tool").pop();
        const userText = body.messages
          .filter((m) => m.role === "user")
          .map(messageText)
          .join("\n");
        if (toolResult)
          return {
            text: messageText(toolResult).includes("December 18")
              ? "Memory says the payments deploy freeze starts on December 18."
              : "Memory had nothing on that.",
          };
        if (userText.includes("look up the deploy freeze")) {
          const direct = body.tools?.some((t) => t.function.name === "cortex_search_memory");
          const args = { query: "deploy freeze payments service" };
          return {
            toolCall: direct
              ? { name: "cortex_search_memory", arguments: args }
              : { name: "tool_call", arguments: { id: "cortex_search_memory", args } },
          };
        }
        if (userText.includes("staging database"))
          return {
            text: "The staging database password is rotated every second Tuesday; Priya Raman runs the rotation.",
          };
        return { text: "Understood, the gateway still answers without the memory daemon being available." };
      });

      // The user's gateway before the plugin: a local gateway, a model, a workspace.
      const { port, token, env, ok } = await setUpStubGateway(host, {
        home,
        root,
        workspace: ws,
        stubUrl: stub.url,
        socket: daemon.socket,
        timeoutMs: 180_000,
      });

      // Installed exactly as integrations/openclaw/README.md says.
      await ok(["plugins", "install", "-l", PLUGIN_DIR, "--force", "--accept-capabilities"]);
      await ok(["config", "set", "plugins.entries.cortexd.hooks.allowConversationAccess", "true"]);
      // A loaded CI machine can stall the gateway's event loop past the 250 ms default; the config is
      // validated by the plugin's schema on the way in.
      await ok(["config", "set", "plugins.entries.cortexd.config.recallTimeoutMs", "3000"]);

      // (The inspecting process loads the plugin itself, and takes the state lock a gateway holds: before the gateway.)
      const inspect = await ok(["plugins", "inspect", "cortexd", "--runtime", "--json"]);
      const report = JSON.parse(inspect.stdout.slice(inspect.stdout.indexOf("{"))) as {
        plugin: { status: string; toolNames: string[] };
        typedHooks: { name: string }[];
        gatewayMethods: string[];
        diagnostics: unknown[];
        policy: { allowConversationAccess: boolean };
      };
      expect(report.plugin.status).toBe("loaded");
      expect(report.typedHooks.map((h) => h.name).sort()).toEqual(["agent_end", "before_prompt_build", "session_end"]);
      expect(report.plugin.toolNames.sort()).toEqual(["cortex_save_memory", "cortex_search_memory"]);
      expect(report.gatewayMethods).toContain("cortex.status");
      expect(report.policy.allowConversationAccess).toBe(true);
      expect(report.diagnostics).toEqual([]);

      gateway = await startGateway(host, port, token, env, root);

      // The gateway method, in the documented (Cortex plugin) shape.
      // (The port opens before the gateway has finished starting: allow it time to answer.)
      const st = await ok(["gateway", "call", "cortex.status", "--json", "--timeout", "120000"]);
      const status = JSON.parse(st.stdout.slice(st.stdout.indexOf("{"))) as Record<string, unknown>;
      expect(status).toMatchObject({
        version: expect.any(String),
        healthy: true,
        knowledgeState: {
          hasMemories: true,
          totalSessions: expect.any(Number),
          maturity: expect.any(String),
          tier: expect.any(Number),
        },
        recallMetrics: {
          count: expect.any(Number),
          p50: expect.any(Number),
          p95: expect.any(Number),
          p99: expect.any(Number),
        },
        retryQueuePending: 0,
        config: { autoRecall: true, autoCapture: true },
      });

      // A turn about the planted memory: the model gets it in a <cortex_memories> block.
      console.log(`model requests: ${dump}`);
      const turn1 = await ok([
        "agent",
        "--session-key",
        "agent:main:t1",
        "-m",
        "When is the staging database password rotated, and which editor do I like?",
        "--json",
      ]);
      expect(turn1.stdout).toContain("every second Tuesday");
      const asked = stub.requests.find((r) => seen(r).includes("When is the staging database password rotated"));
      expect(asked, `the model never got the question; it got ${stub.requests.length} request(s)`).toBeDefined();
      const block = /<cortex_memories>[\s\S]*?<\/cortex_memories>/.exec(seen(asked!))?.[0] ?? "";
      expect(block).toContain("every second Tuesday");
      expect(block).toContain("Priya Raman");
      // MEMORY.md is in OpenClaw's system prompt already: not recalled a second time.
      expect(block).not.toContain("Helix");
      expect(JSON.stringify(asked).split("favourite editor is Helix").length - 1).toBe(1);

      // The turn is captured into today's daily log.
      const today = join(ws, "memory", `${localDate()}.md`);
      await waitUntil(
        () => existsSync(today) && readFileSync(today, "utf8").includes("staging database password rotated"),
        60_000,
        200,
      );
      expect(readFileSync(today, "utf8")).toMatch(
        /User: When is the staging database password rotated.*Assistant: The staging database password is rotated every second Tuesday/,
      );
      expect(readFileSync(today, "utf8")).not.toContain("cortex_memories");

      // A tool call: the model calls cortex_search_memory; the results reach its next request.
      const before = stub.requests.length;
      const turn2 = await ok([
        "agent",
        "--session-key",
        "agent:main:t2",
        "-m",
        "Please look up the deploy freeze in memory.",
        "--json",
      ]);
      // Offered: directly, or in Tool Search's directory of the system prompt.
      const offered = stub.requests
        .slice(before)
        .find(
          (r) =>
            r.tools?.some((t) => t.function.name === "cortex_search_memory") ||
            messageText(r.messages[0]).includes("cortex_search_memory"),
        );
      expect(offered, "the model was never offered cortex_search_memory").toBeDefined();
      const afterTool = stub.requests.slice(before).find((r) => r.messages.some((m) => m.role === "tool"));
      expect(afterTool, "no request carried the tool's result").toBeDefined();
      const toolResult = messageText(afterTool!.messages.filter((m) => m.role === "tool").pop());
      expect(toolResult).toContain("December 18");
      expect(toolResult).toMatch(/memory\/2026-11-20\.md#L\d+-L\d+/);
      expect(turn2.stdout).toContain("December 18");

      // The daemon stops: the turn still succeeds, without memories.
      await daemon.stop();
      const n = stub.requests.length;
      const turn3 = await ok([
        "agent",
        "--session-key",
        "agent:main:t3",
        "-m",
        "Is the gateway still fine without its memory daemon?",
        "--json",
      ]);
      expect(turn3.stdout).toContain("the gateway still answers");
      const last = stub.requests.slice(n).find((r) => seen(r).includes("still fine without its memory daemon"));
      expect(last).toBeDefined();
      expect(seen(last!)).not.toContain("<cortex_memories>");
    },
  );
});
