import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, isolatedEnv, runCli } from "./helpers/cli.js";
import { daemonsPerTest, startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

/**
 * `cortexd init` as a new user runs it: a fresh HOME with nothing, with an OpenClaw layout, with
 * Claude Code transcripts; each ends with the real daemon indexing the right files.
 */

const FIXTURES = resolve(import.meta.dirname, "fixtures");
const { track } = daemonsPerTest();

interface InitJson {
  workspace: string;
  created: string[];
  transcriptDirs: string[];
  configFile: string;
  configChanged: boolean;
  next: string[];
}

function init(home: string, args: string[] = []): InitJson {
  const r = runCli(["init", "--json", ...args], isolatedEnv(home));
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as InitJson;
}

/** The real daemon on the config init wrote (no -w), once its start-up sync is done. */
async function daemonAfterInit(home: string): Promise<TestDaemon> {
  const d = track(await startDaemon({ home }));
  await waitUntil(async () => (await d.call("cortex.status", {})).workspaces.every((w) => w.lastSync !== null), 30_000);
  return d;
}

const status = (d: TestDaemon) =>
  JSON.parse(runCli(["status", "--json"], d.env).stdout) as {
    healthy: boolean;
    workspaces: { root: string; files: number; missing?: boolean }[];
  };
const search = (d: TestDaemon, q: string) =>
  (JSON.parse(runCli(["search", "--json", q], d.env).stdout) as { results: { path: string }[] }).results.map(
    (r) => r.path,
  );

describe("cortexd init (real CLI and daemon, fresh HOME)", () => {
  it("(a) nothing there: creates a memory workspace, writes the config, says what is next; again: changes nothing", async () => {
    const home = tempDir("cortexd-home-");
    const text = runCli(["init"], isolatedEnv(home));
    expect(text.code, text.stderr).toBe(0);
    const ws = join(home, ".cortexd", "workspace");
    expect(text.stdout).toContain(`workspace:   ${ws} (created memory/, MEMORY.md)`);
    expect(text.stdout).toMatch(/config: +wrote .*\.config\/cortexd\/config\.json/);
    expect(text.stdout).toMatch(/next: +cortexd start/);
    expect(existsSync(join(ws, "MEMORY.md")) && existsSync(join(ws, "memory"))).toBe(true);
    const again = init(home);
    expect(again).toMatchObject({ workspace: ws, created: [], configChanged: false, transcriptDirs: [] });
    const d = await daemonAfterInit(home);
    expect(status(d)).toMatchObject({ healthy: true, workspaces: [{ root: ws, files: 1 }] });
    // The new MEMORY.md says what `save` really does, and its note is never recalled as a memory.
    const placeholder = readFileSync(join(ws, "MEMORY.md"), "utf8");
    expect(placeholder).toContain("appends to today's daily log");
    const asked = runCli(
      ["recall", "--json", "which long-term facts, decisions and preferences do my agents keep?"],
      d.env,
    );
    expect(asked.code, asked.stderr).toBe(0);
    expect((JSON.parse(asked.stdout) as { context: string }).context).toBe("");
    expect(runCli(["save", "The staging database is called ravenwood."], d.env).code).toBe(0);
    await waitUntil(() => search(d, "ravenwood").length > 0, 15_000);
    expect(search(d, "ravenwood")[0]).toMatch(/^memory\/\d{4}-\d{2}-\d{2}\.md$/);
  }, 180_000);

  it("(b) an OpenClaw layout: uses ~/.openclaw/workspace as it is, with its agents' session dirs", async () => {
    const home = tempDir("cortexd-home-");
    const ws = join(home, ".openclaw", "workspace");
    cpSync(join(FIXTURES, "workspace"), ws, { recursive: true });
    const sessions = join(home, ".openclaw", "agents", "main", "sessions");
    mkdirSync(sessions, { recursive: true });
    cpSync(join(FIXTURES, "workspace", "sessions", "2026-11-27-session.jsonl"), join(sessions, "agent-session.jsonl"));
    const memoryBefore = readFileSync(join(ws, "MEMORY.md"), "utf8");
    const out = init(home, ["--yes"]);
    expect(out).toMatchObject({ workspace: ws, created: [], transcriptDirs: [sessions], configChanged: true });
    expect(readFileSync(join(ws, "MEMORY.md"), "utf8")).toBe(memoryBefore); // left as it is
    const d = await daemonAfterInit(home);
    expect(status(d)).toMatchObject({ healthy: true, workspaces: [{ root: ws, files: 8 }] }); // 7 in the workspace + the agent's session
    expect(search(d, "sourdough")).toContain("memory/2026-11-26.md");
    expect(d.stderr()).toMatch(/ready: 1 workspace, 8 files/);
  }, 180_000);

  it("(c) a Claude Code layout: a new workspace that also indexes ~/.claude/projects; --hooks claude-code installs the hooks", async () => {
    const home = tempDir("cortexd-home-");
    const project = join(home, ".claude", "projects", "-home-dev-projects-billing");
    mkdirSync(project, { recursive: true });
    cpSync(
      join(FIXTURES, "claude-code", "transcript.jsonl"),
      join(project, "5f0c2a9e-7b1d-4c8e-9a3f-2d6b8e1c4a70.jsonl"),
    );
    const out = init(home, ["--hooks", "claude-code"]);
    const ws = join(home, ".cortexd", "workspace");
    expect(out).toMatchObject({
      workspace: ws,
      created: ["memory/", "MEMORY.md"],
      transcriptDirs: [join(home, ".claude", "projects")],
    });
    const settings = JSON.parse(readFileSync(join(home, ".claude", "settings.json"), "utf8")) as {
      hooks: Record<string, unknown[]>;
    };
    expect(Object.keys(settings.hooks)).toEqual(expect.arrayContaining(["SessionStart", "UserPromptSubmit", "Stop"]));
    expect(init(home, ["--hooks", "claude-code"])).toMatchObject({ configChanged: false, created: [] });
    const d = await daemonAfterInit(home);
    expect(status(d)).toMatchObject({ healthy: true, workspaces: [{ root: ws, files: 2 }] }); // MEMORY.md + the transcript
    const hits = search(d, "renderInvoicePdf tax table queries");
    expect(hits[0]).toContain("5f0c2a9e-7b1d-4c8e-9a3f-2d6b8e1c4a70.jsonl");
  }, 180_000);

  it("(d) Claude Code's own memory: init lists the auto-memory folders and CLAUDE.md files and the daemon indexes them, read only", async () => {
    const home = tempDir("cortexd-home-");
    const project = join(home, "code", "shop");
    const key = project.replace(/[^a-zA-Z0-9]/g, "-");
    const files: Record<string, string> = {
      [`.claude/projects/${key}/0d1e.jsonl`]:
        JSON.stringify({ type: "user", cwd: project, message: { role: "user", content: "hello there" } }) + "\n",
      [`.claude/projects/${key}/memory/MEMORY.md`]: "- [Refunds](refunds.md) — refunds go through the ledger service\n",
      [`.claude/projects/${key}/memory/refunds.md`]:
        "---\nname: refunds\ndescription: refunds go through the ledger service\nmetadata:\n  type: project\n---\n\nEvery refund is booked by the ledger service, never by the storefront.\n",
      ".claude/CLAUDE.md": "- Keep answers short.\n",
      "code/shop/CLAUDE.md": "- The storefront is written in Elixir.\n",
    };
    writeFiles(home, files);
    const text = runCli(["init", "--yes"], isolatedEnv(home));
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /Claude Code: memory: 1 project, 2 auto-memory files, 2 CLAUDE\.md; 1 transcript in 1 project/,
    );
    expect(text.stdout).toContain(
      "Claude Code: 1 project, 2 auto-memory files, 2 CLAUDE.md (indexed with the workspace, never written)",
    );
    const config = JSON.parse(readFileSync(join(home, ".config", "cortexd", "config.json"), "utf8"));
    expect(config.workspaces[0]).toMatchObject({ claudeCodeMemory: true });
    expect(init(home)).toMatchObject({ configChanged: false, claudeCodeMemory: true });
    const d = await daemonAfterInit(home);
    // MEMORY.md of the workspace, the transcript, the two auto-memory files, the two CLAUDE.md.
    expect(status(d)).toMatchObject({
      healthy: true,
      workspaces: [{ files: 6, claudeCode: "1 project, 2 auto-memory files, 2 CLAUDE.md" }],
    });
    expect(runCli(["status"], d.env).stdout).toContain(
      "Claude Code: 1 project, 2 auto-memory files, 2 CLAUDE.md (read only)",
    );
    expect(search(d, "who books a refund ledger")).toContain(
      join(home, ".claude", "projects", key, "memory", "refunds.md"),
    );
    expect(search(d, "storefront Elixir")).toContain(join(project, "CLAUDE.md"));
    for (const [rel, content] of Object.entries(files)) expect(readFileSync(join(home, rel), "utf8")).toBe(content);
  }, 180_000);

  it.skipIf(spawnSync("script", ["--version"]).status !== 0)(
    "on a terminal it asks (a real pty through script(1)): the answers choose the workspace, the transcripts and the hooks",
    () => {
      const home = tempDir("cortexd-home-");
      mkdirSync(join(home, ".claude", "projects", "p"), { recursive: true });
      cpSync(join(FIXTURES, "claude-code", "transcript.jsonl"), join(home, ".claude", "projects", "p", "x.jsonl"));
      const r = spawnSync(
        "script",
        ["-qec", `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} init`, "/dev/null"],
        {
          env: { ...process.env, ...isolatedEnv(home) },
          input: "~/notes\nn\ny\nn\n", // workspace; no transcripts; hooks yes; service no
          encoding: "utf8",
          timeout: 60_000,
        },
      );
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain("memory workspace [~/.cortexd/workspace]:");
      expect(r.stdout).toContain(`workspace:   ${join(home, "notes")} (created memory/, MEMORY.md)`);
      const config = JSON.parse(readFileSync(join(home, ".config", "cortexd", "config.json"), "utf8"));
      // Claude Code is there (~/.claude): its own memory is indexed with the workspace (not a question).
      expect(config).toEqual({ workspaces: [{ path: join(home, "notes"), claudeCodeMemory: true }] });
      expect(readFileSync(join(home, ".claude", "settings.json"), "utf8")).toMatch(/cortexd hook UserPromptSubmit/);
    },
  );

  it("--workspace DIR (relative to the cwd) and --dry-run; a bad --hooks value is refused", () => {
    const home = tempDir("cortexd-home-");
    const env = isolatedEnv(home);
    const dry = runCli(["init", "--dry-run", "--json", "-w", "notes"], env, undefined, { cwd: home });
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, workspace: join(home, "notes") });
    expect(existsSync(join(home, "notes")) || existsSync(join(home, ".config", "cortexd", "config.json"))).toBe(false);
    const real = runCli(["init", "--json", "-w", "notes"], env, undefined, { cwd: home });
    expect(JSON.parse(real.stdout)).toMatchObject({
      workspace: join(home, "notes"),
      created: ["memory/", "MEMORY.md"],
    });
    const bad = runCli(["init", "--hooks", "cursor"], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/only claude-code/);
  });
});
