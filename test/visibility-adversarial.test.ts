import { readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import plugin, { type OpenClawPluginApi, type PluginTool } from "../integrations/openclaw/index.js";
import { localDate } from "../src/memory-files/entry.js";
import { runCli } from "./helpers/cli.js";
import { daemonsPerTest, startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { BIN, ccEvent, runTimed } from "./helpers/hooks.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

/**
 * Private facts planted in every source a private conversation feeds (MEMORY.md, USER.md and what
 * resolves to them, a DM's capture, a DM's transcript, a private session's save, a Claude Code
 * session's capture) and a group's facts in another group; then a group asks for each of them on
 * every read path (recall, search, get, session start, the hook, MCP, the OpenClaw tools). Each
 * secret is a word of its own, so a leak is found by the word wherever it shows up.
 */

const { daemonOn, track } = daemonsPerTest();
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
});

const DM = "agent:main:telegram:direct:4242";
const GROUP_A = "agent:main:telegram:group:-100777";
const GROUP_B = "agent:main:discord:channel:42";
const CLAUDE = "3f2a9c1e-5b7d-4e21-9a0b-1c2d3e4f5a6b";

/** word → where it was planted; none may reach group B. */
const PRIVATE = {
  zephyrquartz: "MEMORY.md",
  kestrelnine: "USER.md",
  marblefinch: "save sidecar of MEMORY.md",
  lanternmoth: "a copy of MEMORY.md",
  otterplum: "DM transcript",
  heronsalary: "DM capture",
  quillbasalt: "private session save",
  cobaltwren: "Claude Code session capture",
  fernglacier: "CLI save (no session)",
  pumicehare: "group A capture",
} as const;
const WORDS = Object.keys(PRIVATE);

function plant(root: string): void {
  writeFiles(root, {
    "MEMORY.md":
      "# Memory\n\n- The vault code word is zephyrquartz, kept for the bank.\n- The locker combination is lanternmoth.\n",
    "USER.md": "# User\n\n- Blood type and allergy card number kestrelnine.\n",
    "memory/MEMORY.saved-during-conflict.md": "- Saved during a merge: the safe word is marblefinch.\n",
    "memory/2026-01-04.md": "# 2026-01-04\n\n- The team lunch moved to Fridays at the harbour cafe.\n",
    "sessions/dm1.jsonl":
      [
        { type: "session", sessionKey: DM },
        { type: "message", message: { role: "user", content: "my salary negotiation, the code is otterplum" } },
        {
          type: "message",
          message: { role: "assistant", content: "Noted: the negotiation code otterplum stays between us." },
        },
      ]
        .map((r) => JSON.stringify(r))
        .join("\n") + "\n",
  });
  // MEMORY.md's copy under another name (by content) and a symlink to USER.md (by target).
  writeFileSync(join(root, "memory/backup-notes.md"), readFileSync(join(root, "MEMORY.md")));
  symlinkSync("../USER.md", join(root, "memory/user-profile.md"));
}

const turn = (user: string, assistant: string) => [
  { role: "user", content: user },
  { role: "assistant", content: assistant },
];

async function feed(d: TestDaemon): Promise<void> {
  await d.call("memory.capture", {
    session_id: DM,
    messages: turn(
      "My salary negotiation with Brightlance: they offered heronsalary as the sign-on code",
      "Understood, the Brightlance offer heronsalary is noted; we keep it private.",
    ),
  });
  await d.call("memory.save", {
    text: "The private reminder quillbasalt is for my eyes only",
    session_id: "agent:main:main",
  });
  await d.call("memory.capture", {
    session_id: CLAUDE,
    messages: turn(
      "Refactor the auth module, the staging password hint is cobaltwren",
      "Done: the auth module is refactored and the hint cobaltwren is noted.",
    ),
  });
  await d.call("memory.capture", {
    session_id: GROUP_A,
    messages: turn(
      "Group A plans the offsite at pumicehare lodge next month",
      "Got it, group A's offsite is at pumicehare lodge next month.",
    ),
  });
  expect(runCli(["save", "The CLI note fernglacier is mine alone"], d.env).code).toBe(0);
}

/** The words of WORDS a text holds. */
const leaked = (text: string) => WORDS.filter((w) => text.toLowerCase().includes(w));

async function groupReads(d: TestDaemon, word: string, group = GROUP_B) {
  const recall = await d.call("memory.recall", { query: `what is ${word}?`, scope: "group", group });
  const search = await d.call("memory.search", { query: word, scope: "group", group, limit: 20 });
  return { recall, search };
}

async function indexed(d: TestDaemon): Promise<void> {
  await d.call("index.sync", {});
  // The capture's file is indexed before the reply; the CLI's save when the watcher sees it.
  await waitUntil(async () => (await d.call("memory.search", { query: "fernglacier" })).results.length > 0, 20_000);
}

describe("visibility: nothing private reaches a group (real daemon)", () => {
  it("group-scope recall and search return no private memory and nothing of another group, for every source", async () => {
    const root = tempDir();
    plant(root);
    const d = await daemonOn(root);
    await feed(d);
    await indexed(d);
    // Private scope (the user's own) finds every one of them: the facts are there.
    for (const w of WORDS) {
      const all = await d.call("memory.search", { query: w, limit: 20 });
      expect(all.results.length, `private search finds ${w} (${PRIVATE[w as keyof typeof PRIVATE]})`).toBeGreaterThan(
        0,
      );
    }
    for (const w of WORDS) {
      const { recall, search } = await groupReads(d, w);
      expect(leaked(recall.context), `recall for ${w}`).toEqual([]);
      expect(leaked(JSON.stringify(search.results)), `search for ${w}`).toEqual([]);
      // No scope stated over a socket is private (the local caller's own): unchanged.
    }
    // Group A sees its own memory; group B and an unknown group do not.
    const a = await groupReads(d, "pumicehare", GROUP_A);
    expect(a.search.results.map((r) => r.snippet).join(" ")).toContain("pumicehare");
    expect(a.recall.context).toContain("pumicehare");
    const unknown = await d.call("memory.search", { query: "pumicehare", scope: "group" });
    expect(unknown.results).toEqual([]);
    // The open note (written by hand) stays visible to groups.
    const open = await d.call("memory.search", { query: "harbour cafe lunch", scope: "group", group: GROUP_B });
    expect(open.results.map((r) => r.path)).toContain("memory/2026-01-04.md");
    // --explain shows who may see each hit.
    const ex = await d.call("memory.search", { query: "zephyrquartz", explain: true });
    expect(ex.results.find((r) => r.path === "MEMORY.md")?.visibility).toBe("private");
    const exg = await d.call("memory.search", { query: "pumicehare", explain: true });
    expect(exg.results[0]?.visibility).toBe("group:telegram:group:-100777");
  });

  it("group-scope explain counts only what the group may see (no df side channel)", async () => {
    const root = tempDir();
    plant(root);
    const d = await daemonOn(root);
    const priv = await d.call("memory.recall", { query: "zephyrquartz", explain: true });
    expect(priv.explain!.words.find((w) => w.word === "zephyrquartz")?.df).toBeGreaterThan(0);
    const group = await d.call("memory.recall", {
      query: "zephyrquartz",
      scope: "group",
      group: GROUP_B,
      explain: true,
    });
    expect(group.explain!.words.find((w) => w.word === "zephyrquartz")?.df).toBe(0);
    expect(group.explain!.chunks).toBeLessThan(priv.explain!.chunks);
    expect(JSON.stringify(group.explain)).not.toMatch(/zephyrquartz.*MEMORY\.md|MEMORY\.md/);
  });

  it("memory.get from a group: private files are refused with a clear error, other conversations' lines come back empty", async () => {
    const root = tempDir();
    plant(root);
    const d = await daemonOn(root);
    await feed(d);
    await indexed(d);
    for (const path of [
      "MEMORY.md",
      "USER.md",
      "memory/MEMORY.saved-during-conflict.md",
      "memory/user-profile.md",
      "sessions/dm1.jsonl",
    ]) {
      const err = await d.call("memory.get", { path, scope: "group", group: GROUP_B }).then(
        () => null,
        (e: { code?: number; message?: string }) => e,
      );
      expect(err, path).not.toBeNull();
      expect(err!.code, path).toBe(-32009);
      expect(err!.message).toMatch(/not visible: .* ask from a private session/);
    }
    const today = `memory/${localDate()}.md`;
    const own = await d.call("memory.get", { path: today });
    expect(leaked(own.text).sort()).toEqual(["cobaltwren", "fernglacier", "heronsalary", "pumicehare", "quillbasalt"]);
    const g = await d.call("memory.get", { path: today, scope: "group", group: GROUP_B });
    expect(leaked(g.text)).toEqual([]);
    expect(g.hidden).toBeGreaterThan(0);
    const ga = await d.call("memory.get", { path: today, scope: "group", group: GROUP_A });
    expect(leaked(ga.text)).toEqual(["pumicehare"]);
  });

  it("a group session's start gets neither a DM's goal and focus nor its turns; a save to MEMORY.md from a group is refused", async () => {
    const root = tempDir();
    writeFiles(root, { "memory/2026-01-04.md": "# 2026-01-04\n\n- An open note about the harbour.\n" });
    const d = await daemonOn(root);
    await feed(d);
    const start = await d.call("session.start", { session_id: GROUP_B, source: "startup" });
    expect(leaked(JSON.stringify(start))).toEqual([]);
    expect(start.recovery).toBe("");
    expect(start.previous).toBeUndefined();
    // A private session after the same DM is told of it.
    const mine = await d.call("session.start", { session_id: "agent:main:main", source: "startup" });
    expect(leaked(mine.context).length).toBeGreaterThan(0);
    const refused = await d.call("memory.save", { text: "group fact", target: "memory", session_id: GROUP_A }).then(
      () => null,
      (e: { code?: number; message?: string }) => e,
    );
    expect(refused?.code).toBe(-32009);
    expect(refused?.message).toMatch(/cannot save to MEMORY\.md/);
  });

  it("rebuilding the index from the files restores every visibility", async () => {
    const root = tempDir();
    plant(root);
    const d = await daemonOn(root);
    await feed(d);
    await indexed(d);
    const before = await d.call("memory.search", { query: WORDS.join(" "), limit: 50, explain: true });
    const vis = (r: typeof before) => r.results.map((h) => `${h.path}:${h.startLine}:${h.visibility}`).sort();
    const home = d.home;
    await d.stop();
    rmSync(join(home, ".local/share/cortexd/indexes"), { recursive: true, force: true });
    const again = track(
      await startDaemon({ home, config: { workspaces: [{ path: root }], daemon: { debounceMs: 50, settleMs: 20 } } }),
    );
    await waitUntil(
      async () => (await again.call("cortex.status", {})).workspaces.every((w) => w.lastSync !== null),
      30_000,
    );
    const after = await again.call("memory.search", { query: WORDS.join(" "), limit: 50, explain: true });
    expect(vis(after)).toEqual(vis(before));
    expect(vis(after).some((v) => v.endsWith(":private"))).toBe(true);
    for (const w of WORDS) {
      const { recall, search } = await groupReads(again, w);
      expect(leaked(recall.context + JSON.stringify(search.results)), w).toEqual([]);
    }
  });
});

describe("visibility through the real hook, MCP and OpenClaw plugin processes", () => {
  it("the UserPromptSubmit hook in group scope, `cortexd mcp --scope group` and the plugin's tools in a group return none of the private facts", async () => {
    const root = tempDir();
    plant(root);
    const d = await daemonOn(root);
    await feed(d);
    await indexed(d);

    // The hook, a real process, with --scope group.
    for (const w of ["zephyrquartz", "heronsalary", "otterplum", "cobaltwren"]) {
      const r = await runTimed(
        process.execPath,
        [BIN, "hook", "UserPromptSubmit", "--scope", "group", "--timeout-ms", "5000"],
        d.env,
        JSON.stringify(ccEvent("user-prompt-submit", { prompt: `what was ${w} again?`, cwd: root })),
      );
      expect(r.code).toBe(0);
      expect(leaked(r.stdout), `hook for ${w}`).toEqual([]);
    }
    const hookPrivate = await runTimed(
      process.execPath,
      [BIN, "hook", "UserPromptSubmit", "--timeout-ms", "5000"],
      d.env,
      JSON.stringify(ccEvent("user-prompt-submit", { prompt: "what was cobaltwren again?", cwd: root })),
    );
    expect(hookPrivate.stdout).toContain("cobaltwren");

    // MCP, a real `cortexd mcp` speaking for group B.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp", "--scope", "group", "--group", GROUP_B],
      env: { ...(process.env as Record<string, string>), CORTEXD_LOG_LEVEL: "warn", ...d.env },
      stderr: "pipe",
    });
    const mcp = new Client({ name: "cortexd-test", version: "1.0.0" });
    await mcp.connect(transport);
    clients.push(mcp);
    for (const w of WORDS) {
      const r = (await mcp.callTool({ name: "memory_search", arguments: { query: w, limit: 20 } })) as unknown as {
        structuredContent: { results: unknown[] };
      };
      expect(leaked(JSON.stringify(r.structuredContent.results)), `mcp search ${w}`).toEqual([]);
    }
    const got = (await mcp.callTool({ name: "memory_get", arguments: { path: "MEMORY.md" } })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(got.isError).toBe(true);
    expect(leaked(got.content[0]!.text)).toEqual([]);

    // The OpenClaw plugin's tools as OpenClaw makes them for a group conversation.
    const factories = new Map<string, (ctx: unknown) => PluginTool>();
    const api: OpenClawPluginApi = {
      pluginConfig: { socketPath: d.socket },
      on: () => {},
      registerGatewayMethod: () => {},
      registerTool: (tool, opts) => {
        if (typeof tool === "function") for (const n of opts?.names ?? []) factories.set(n, tool);
      },
    };
    plugin.register(api);
    const search = factories.get("cortex_search_memory")!({ sessionKey: GROUP_B });
    for (const w of WORDS) {
      const r = await search.execute("c1", { query: w, limit: 20 });
      expect(leaked(JSON.stringify((r.details as { results: unknown[] }).results)), `plugin search ${w}`).toEqual([]);
    }
    // The fail-open keys of before: a group whose key has "dm"/"private"/"direct" later in it.
    for (const key of [
      "agent:main:matrix:group:!abc:dm",
      "agent:main:irc:channel:private",
      "agent:main:discord:channel:42:direct:1",
    ]) {
      const r = await factories.get("cortex_search_memory")!({ sessionKey: key }).execute("c2", {
        query: "zephyrquartz kestrelnine heronsalary",
      });
      expect(leaked(JSON.stringify((r.details as { results: unknown[] }).results)), key).toEqual([]);
    }
    const save = factories.get("cortex_save_memory")!({ sessionKey: GROUP_B });
    await expect(save.execute("c3", { text: "group B writes MEMORY.md", target: "memory" })).rejects.toThrow(
      /cannot save to MEMORY\.md/,
    );
    expect(readFileSync(join(root, "MEMORY.md"), "utf8")).not.toContain("group B writes");
    // A save from group B is group B's: group A does not see it, group B does.
    await save.execute("c4", { text: "Group B's deploy freeze word is tundrapike" });
    const inA = await d.call("memory.search", { query: "tundrapike", scope: "group", group: GROUP_A });
    const inB = await d.call("memory.search", { query: "tundrapike", scope: "group", group: GROUP_B });
    expect(inA.results).toEqual([]);
    expect(inB.results.length).toBeGreaterThan(0);
  });
});
