/**
 * Claude Code hook behaviour that depends on the session: which workspace the event's cwd picks,
 * what SessionStart gives by `source`, and hook failures shown in `cortexd status`. Real hook
 * processes (the package's launcher) against a real daemon; events shaped as Claude Code 2.1.328
 * sends them (test/claude-code-real.test.ts runs the real CLI).
 */
import { mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CortexStatus } from "../src/rpc/protocol.js";
import { isolatedEnv, runCli } from "./helpers/cli.js";
import { daemonsPerTest, startDaemon, waitUntil } from "./helpers/daemon.js";
import { runHook } from "./helpers/hooks.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

const { daemonOn, track } = daemonsPerTest();
const SESSION = "0d6f2c1a-4b3e-4f5a-8c7d-9e0f1a2b3c4d";

const event = (name: string, cwd: string, extra: Record<string, unknown> = {}) => ({
  session_id: SESSION,
  transcript_path: join(cwd, "no-transcript.jsonl"),
  cwd,
  permission_mode: "default",
  hook_event_name: name,
  ...extra,
});
const context = (stdout: string): string =>
  stdout
    ? (JSON.parse(stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext
    : "";
/** Budgets fit for a loaded CI machine: these tests are about content, not speed. */
const SLOW_OK = ["--timeout-ms", "5000"];

describe("hooks: the event's cwd picks the workspace", () => {
  it("with two workspaces, a prompt in each project recalls that project's memory only; an explicit --workspace wins", async () => {
    const home = tempDir("cortexd-home-");
    const a = join(home, "mem-a");
    const b = join(home, "mem-b");
    const projA = join(home, "code", "api");
    const projB = join(home, "code", "shop");
    writeFiles(a, { "MEMORY.md": "- The Kestrel release is blocked by the expired signing key.\n" });
    writeFiles(b, { "MEMORY.md": "- The Kestrel release is blocked by the failing payment tests.\n" });
    mkdirSync(join(projA, "src", "deep"), { recursive: true });
    mkdirSync(projB, { recursive: true });
    const d = track(
      await startDaemon({
        home,
        config: {
          workspaces: [
            { path: a, name: "api", projects: [projA] },
            { path: b, name: "shop", projects: [projB] },
          ],
          daemon: { debounceMs: 50, settleMs: 20 },
        },
      }),
    );
    await waitUntil(async () => (await d.call("cortex.status", {})).workspaces.every((w) => w.files >= 1), 30_000);
    const ask = async (cwd: string, args: string[] = []) =>
      context(
        (
          await runHook(
            "UserPromptSubmit",
            event("UserPromptSubmit", cwd, { prompt: "What blocks the Kestrel release?" }),
            d.env,
            [...SLOW_OK, ...args],
          )
        ).stdout,
      );

    const inA = await ask(join(projA, "src", "deep")); // a subdirectory of the project
    expect(inA).toContain("expired signing key");
    expect(inA).not.toContain("payment tests");
    const inB = await ask(projB);
    expect(inB).toContain("failing payment tests");
    expect(inB).not.toContain("signing key");
    // Inside a workspace root itself.
    expect(await ask(b)).toContain("failing payment tests");
    // Explicit workspace beats the cwd; a cwd in no workspace falls back to the first.
    expect(await ask(projB, ["--workspace", "api"])).toContain("expired signing key");
    expect(await ask(tempDir())).toContain("expired signing key");
    // Capture follows the cwd too: the session state lands in the project's workspace.
    await runHook("SessionStart", event("SessionStart", projB, { source: "startup" }), d.env, SLOW_OK);
    const st = await d.call("session.start", { session_id: "other", cwd: projB });
    expect(st.previous?.session_id).toBe(SESSION); // found in workspace "shop"
  });
});

describe("hooks: a daemon older than the hook", () => {
  it("refuses the cwd param (unknown key): the hook asks again without it and the recall still arrives", async () => {
    const dir = tempDir("cortexd-old-");
    const sock = join(dir, "old.sock");
    const seen: Record<string, unknown>[] = [];
    const server = createServer((s) => {
      let buf = "";
      s.on("data", (d) => {
        buf += d;
        let nl: number;
        while ((nl = buf.indexOf("\n")) !== -1) {
          const msg = JSON.parse(buf.slice(0, nl)) as { id?: number; method: string; params: Record<string, unknown> };
          buf = buf.slice(nl + 1);
          if (msg.id === undefined) continue; // a notification
          seen.push(msg.params);
          const reply =
            "cwd" in msg.params
              ? {
                  jsonrpc: "2.0",
                  id: msg.id,
                  error: { code: -32602, message: 'invalid params: Unrecognized key: "cwd"' },
                }
              : {
                  jsonrpc: "2.0",
                  id: msg.id,
                  result: {
                    context: "<cortex_memories>\n- old daemon memory\n</cortex_memories>",
                    memories: [],
                    memory_count: 1,
                    tokens_used: 5,
                  },
                };
          s.write(JSON.stringify(reply) + "\n");
        }
      });
    });
    await new Promise<void>((r) => server.listen(sock, r));
    try {
      const env = { ...isolatedEnv(dir), CORTEXD_SOCKET: sock };
      const r = await runHook(
        "UserPromptSubmit",
        event("UserPromptSubmit", dir, { prompt: "anything from before?" }),
        env,
        SLOW_OK,
      );
      expect(context(r.stdout)).toBe("<cortex_memories>\n- old daemon memory\n</cortex_memories>");
      expect(seen.map((p) => "cwd" in p)).toEqual([true, false]);
    } finally {
      server.close();
    }
  });
});

describe("hooks: SessionStart by source", () => {
  it("startup gives recent memory; resume repeats none of it; compact gives the session's checkpoint back", async () => {
    const root = tempDir();
    const yesterday = new Date(Date.now() - 86_400_000);
    const day = `${yesterday.getFullYear()}-${String(yesterday.getMonth() + 1).padStart(2, "0")}-${String(yesterday.getDate()).padStart(2, "0")}`;
    writeFiles(root, {
      "MEMORY.md": "- Curated.\n",
      [`memory/${day}.md`]: `# ${day}\n\n- Switched the nightly build to the arm64 runners.\n`,
    });
    const d = await daemonOn(root);
    const start = async (source: string) =>
      context((await runHook("SessionStart", event("SessionStart", root, { source }), d.env, SLOW_OK)).stdout);

    const startup = await start("startup");
    expect(startup).toMatch(
      /^<cortex_memories>\n[\s\S]*Switched the nightly build to the arm64 runners\.[\s\S]*<\/cortex_memories>$/,
    );
    // The same line shape as a prompt's recall: `- [date] path:from-to: text`.
    expect(startup).toContain(`\n- [${day}] memory/${day}.md:3-3: Switched the nightly build to the arm64 runners.\n`);
    // The conversation comes back with that context in it: nothing to add.
    expect(await start("resume")).toBe("");
    // A prompt gives the session a goal; PreCompact checkpoints it.
    await runHook(
      "UserPromptSubmit",
      event("UserPromptSubmit", root, { prompt: "Move the release build to arm64 as well, then update the runbook." }),
      d.env,
      SLOW_OK,
    );
    await waitUntil(async () => (await d.call("session.checkpoint", { session_id: SESSION })).summary.goal !== null);
    const compact = await start("compact");
    expect(compact).toMatch(
      /^<cortex_checkpoint>\n\[NOTE: cortexd's checkpoint of this session[^\n]*\]\nGoal: Move the release build to arm64 as well, then update the runbook\.\n/,
    );
    expect(compact).toContain("</cortex_checkpoint>\n\n<cortex_memories>");
    expect(compact).not.toContain("[checkpoint session 0d6f2c1a"); // its own checkpoint line is the block above, not repeated
    expect(compact).not.toContain("<cortex_recovery>");
    // A new entry since: resume shows only that one.
    writeFiles(root, {
      [`memory/${day}.md`]: `# ${day}\n\n- Switched the nightly build to the arm64 runners.\n- The arm64 runners need 16 GB of swap.\n`,
    });
    await waitUntil(async () => (await d.call("memory.search", { query: "swap" })).results.length > 0);
    const resumed = await start("resume");
    expect(resumed).toContain("16 GB of swap");
    expect(resumed).not.toContain("Switched the nightly build");
  });
});

describe("hooks: failures are counted and shown in cortexd status", () => {
  it("a hook that timed out, or found a dead socket, is in `cortexd status` (running and not); no daemon at all is not a failure", async () => {
    const root = tempDir();
    writeFiles(root, { "MEMORY.md": "- The Kestrel release is blocked by the expired signing key.\n" });
    const d = await daemonOn(root);
    const status = () => JSON.parse(runCli(["status", "--json"], d.env).stdout) as CortexStatus & { running: boolean };
    expect(status().hooks).toMatchObject({ failures: 0 });
    expect(runCli(["status"], d.env).stdout).toContain("hooks:     no failures");

    // A budget no daemon can meet: the hook gives up, prints nothing, exits 0, and says so.
    const r = await runHook(
      "UserPromptSubmit",
      event("UserPromptSubmit", root, { prompt: "What blocks the Kestrel release?" }),
      d.env,
      ["--timeout-ms", "0"],
    );
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "" });
    const st = status();
    expect(st.hooks).toMatchObject({ failures: 1, timeouts: 1, errors: 0, unavailable: 0, last24h: 1 });
    expect(st.hooks!.recent[0]).toMatchObject({ event: "UserPromptSubmit", kind: "timeout", budgetMs: 0 });
    expect(runCli(["status"], d.env).stdout).toMatch(
      /hooks: {5}1 FAILED \(1 timed out\), 1 in the last 24 h, last \d+s ago; log .*hook-failures\.jsonl\n {2}\S+ UserPromptSubmit: timed out after 0 ms/,
    );

    // The daemon is killed (its socket stays): the hook finds nobody there.
    d.child.kill("SIGKILL");
    await d.exited();
    const dead = await runHook("Stop", event("Stop", root), d.env);
    expect({ code: dead.code, stdout: dead.stdout }).toEqual({ code: 0, stdout: "" });
    const offline = runCli(["status"], d.env);
    expect(offline.code).toBe(3);
    expect(offline.stdout).toMatch(/hooks: {5}2 FAILED \(1 timed out, 1 found no live daemon\)/);
    expect(offline.stdout).toMatch(/Stop: cortexd unreachable at .*ECONNREFUSED/);
  });

  it("a daemon that was stopped (no socket): hooks leave at once and record nothing", async () => {
    const root = tempDir();
    const d = await daemonOn(root);
    await d.stop();
    for (const name of ["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"]) {
      const r = await runHook(name, event(name, root, { source: "startup", prompt: "hello there, what now?" }), d.env);
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "" });
    }
    const s = JSON.parse(runCli(["status", "--json"], d.env).stdout) as {
      running: boolean;
      hooks: { failures: number };
    };
    expect(s).toMatchObject({ running: false, hooks: { failures: 0 } });
  });
});
