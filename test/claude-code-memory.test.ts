/**
 * Claude Code's own memory (auto-memory folders, agent memory, the CLAUDE.md family) found on a real
 * HOME laid out as the CLI 2.1.328 lays it out (test/claude-code-real.test.ts checks the layout
 * against the real CLI), indexed by a real daemon, and searched.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { claudeProjectKey, describeClaudeMemory, findClaudeMemory } from "../src/workspace/claude-code-memory.js";
import { daemonsPerTest, startDaemon, waitUntil } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

const TOPIC = `---
name: tabs-in-go
description: the user wants Go indented with tabs, never spaces
metadata:
  type: feedback
---

Indent Go code with tabs; gofmt decides.

**Why:** the reviewer rejected a patch indented with spaces.
`;

/** A HOME with one Claude Code project (a transcript naming its cwd) and that project's memory. */
function claudeHome(opts: { settings?: unknown; projectSettings?: unknown } = {}) {
  const home = tempDir("cortexd-ccmem-");
  const project = join(home, "code", "bluefin-api");
  const key = claudeProjectKey(project);
  const projects = join(home, ".claude", "projects");
  writeFiles(home, {
    [`.claude/projects/${key}/3f0c.jsonl`]:
      JSON.stringify({ type: "user", cwd: project, message: { role: "user", content: "hi" } }) + "\n",
    [`.claude/projects/${key}/memory/MEMORY.md`]: "- [Tabs in Go](tabs_in_go.md) — gofmt tabs, reviewer rule\n",
    [`.claude/projects/${key}/memory/tabs_in_go.md`]: TOPIC,
    [`.claude/projects/${key}/memory/team/platform/oncall.md`]:
      "---\nname: oncall\ndescription: who carries the pager\ntype: reference\n---\nThe pager rotates every Monday at ten.\n",
    ".claude/CLAUDE.md": "- Answer in British English.\n",
    ".claude/agent-memory/reviewer/style.md": "- The reviewer agent flags functions over sixty lines.\n",
    "code/bluefin-api/CLAUDE.md": "- Run the linters with make lint before any commit.\n",
    "code/bluefin-api/CLAUDE.local.md": "- My sandbox database listens on port 6543.\n",
    "code/bluefin-api/services/billing/CLAUDE.md": "- Billing amounts are integer cents.\n",
  });
  if (opts.settings) writeFiles(home, { ".claude/settings.json": JSON.stringify(opts.settings) });
  if (opts.projectSettings)
    writeFiles(project, { ".claude/settings.local.json": JSON.stringify(opts.projectSettings) });
  return { home, project, key, projects, memoryDir: join(projects, key, "memory") };
}

describe("finding Claude Code's memory", () => {
  it("finds each project's auto-memory folder, agent memory and the CLAUDE.md family", () => {
    const h = claudeHome();
    const found = findClaudeMemory({ env: { HOME: h.home } });
    expect(found.projects).toEqual([h.project]);
    const by = Object.fromEntries(found.sources.map((s) => [s.path, s]));
    expect(by[h.memoryDir]).toMatchObject({ kind: "auto-memory", project: h.project, files: 3 });
    expect(by[join(h.home, ".claude", "CLAUDE.md")]).toMatchObject({ kind: "claude-md" });
    expect(by[join(h.home, ".claude", "CLAUDE.md")]!.project).toBeUndefined();
    expect(by[join(h.project, "CLAUDE.md")]).toMatchObject({ kind: "claude-md", project: h.project });
    expect(by[join(h.project, "CLAUDE.local.md")]).toMatchObject({ kind: "claude-md" });
    expect(by[join(h.project, "services", "billing", "CLAUDE.md")]).toMatchObject({ kind: "claude-md" });
    expect(by[join(h.home, ".claude", "agent-memory", "reviewer")]).toMatchObject({ kind: "agent-memory", files: 1 });
    expect(describeClaudeMemory(found)).toBe("1 project, 3 auto-memory files, 4 CLAUDE.md, 1 agent-memory file");
  });

  it("a project inside a git repository keeps its auto memory under the repository's key", () => {
    const home = tempDir("cortexd-ccmem-");
    const repo = join(home, "code", "mono");
    const cwd = join(repo, "packages", "web");
    mkdirSync(join(repo, ".git"), { recursive: true });
    writeFiles(home, {
      [`.claude/projects/${claudeProjectKey(cwd)}/s.jsonl`]: JSON.stringify({ type: "user", cwd }) + "\n",
      [`.claude/projects/${claudeProjectKey(repo)}/memory/MEMORY.md`]: "- [x](x.md) — y\n",
    });
    const found = findClaudeMemory({ env: { HOME: home } });
    const auto = found.sources.filter((s) => s.kind === "auto-memory");
    expect(auto.map((s) => [s.path, s.project])).toEqual([
      [join(home, ".claude", "projects", claudeProjectKey(repo), "memory"), repo],
    ]);
  });

  it("autoMemoryDirectory moves the folder; autoMemoryEnabled: false leaves it out", () => {
    const custom = tempDir("cortexd-ccmem-custom-");
    writeFiles(custom, { "deploys.md": "- Deploys need two approvals.\n" });
    const moved = claudeHome({ settings: { autoMemoryDirectory: custom } });
    const auto = (h: typeof moved) =>
      findClaudeMemory({ env: { HOME: h.home } })
        .sources.filter((s) => s.kind === "auto-memory")
        .map((s) => s.path);
    expect(auto(moved)).toEqual([custom]);
    // `~/` is the home, as the CLI expands it.
    const tilde = claudeHome();
    writeFiles(tilde.home, {
      "notes/cc/a.md": "- x\n",
      ".claude/settings.json": '{"autoMemoryDirectory": "~/notes/cc"}',
    });
    expect(auto(tilde)).toEqual([join(tilde.home, "notes", "cc")]);
    expect(auto(claudeHome({ settings: { autoMemoryEnabled: false } }))).toEqual([]);
    expect(auto(claudeHome({ projectSettings: { autoMemoryEnabled: false } }))).toEqual([]);
    // The project's local setting wins over the user's.
    expect(
      auto(claudeHome({ settings: { autoMemoryEnabled: false }, projectSettings: { autoMemoryEnabled: true } })),
    ).toHaveLength(1);
  });
});

describe("indexed by the daemon", () => {
  const { track } = daemonsPerTest();

  async function daemonFor(h: ReturnType<typeof claudeHome>) {
    const ws = join(h.home, "memory");
    writeFiles(ws, { "MEMORY.md": "# Memory\n" });
    const d = track(
      await startDaemon({
        home: h.home,
        config: {
          workspaces: [{ path: ws, transcriptDirs: [h.projects], claudeCodeMemory: true }],
          daemon: { debounceMs: 50, settleMs: 20 },
        },
      }),
    );
    await waitUntil(
      async () => (await d.call("cortex.status", {})).workspaces.every((w) => w.lastSync !== null),
      30_000,
    );
    return d;
  }

  it("searches the topic files without their frontmatter, with the type shown; CLAUDE.md edits follow", async () => {
    const h = claudeHome();
    const d = await daemonFor(h);
    const res = await d.call("memory.search", { query: "indent Go tabs" });
    const topic = res.results.find((r) => r.path === join(h.memoryDir, "tabs_in_go.md"));
    expect(topic, JSON.stringify(res.results.map((r) => r.path))).toBeDefined();
    expect(topic!.snippet).toContain("[feedback] tabs-in-go — the user wants Go indented with tabs");
    expect(topic!.snippet).not.toMatch(/^---|metadata:|name:|description:|type:/m);
    // A hit on the index line names the topic file it links to.
    const index = (await d.call("memory.search", { query: "reviewer rule gofmt" })).results.find(
      (r) => r.path === join(h.memoryDir, "MEMORY.md"),
    );
    expect(index?.snippet).toContain(`[Tabs in Go](${join(h.memoryDir, "tabs_in_go.md")})`);
    // …which memory.get (the MCP tool memory_get) opens, as it is on disk.
    const got = await d.call("memory.get", { path: join(h.memoryDir, "tabs_in_go.md") });
    expect(got.text).toBe(TOPIC.replace(/\n$/, ""));
    const team = await d.call("memory.search", { query: "who carries the pager" });
    expect(team.results[0]!.path).toBe(join(h.memoryDir, "team", "platform", "oncall.md"));
    expect(team.results[0]!.snippet).toContain("[reference] oncall — who carries the pager");
    const recalled = await d.call("memory.recall", { query: "How should I indent the Go code, tabs or spaces?" });
    expect(recalled.context).toContain("[feedback] tabs-in-go");
    expect(recalled.context).not.toMatch(/metadata:|^---/m);
    for (const q of ["British English", "make lint before any commit", "integer cents", "sixty lines"])
      expect((await d.call("memory.search", { query: q })).results.length, q).toBeGreaterThan(0);
    // An edit of a CLAUDE.md is searchable within the watcher's delay.
    writeFileSync(
      join(h.project, "CLAUDE.md"),
      "- Run the linters with make lint before any commit.\n- Releases go out on Thursdays.\n",
    );
    await waitUntil(
      async () =>
        (await d.call("memory.search", { query: "which day do releases go out" })).results.some(
          (r) => r.path === join(h.project, "CLAUDE.md"),
        ),
      10_000,
    );
  });

  it("a project that appears while the daemon runs: its auto memory is indexed without a restart", async () => {
    const h = claudeHome();
    const d = await daemonFor(h);
    const late = join(h.home, "code", "orders-service");
    const key = claudeProjectKey(late);
    writeFiles(h.projects, {
      [`${key}/9a1b.jsonl`]: JSON.stringify({ type: "user", cwd: late }) + "\n",
      [`${key}/memory/pool.md`]:
        "---\nname: pool\ndescription: connection pool size\ntype: project\n---\nThe orders pool holds forty connections.\n",
    });
    await waitUntil(
      async () =>
        (await d.call("memory.search", { query: "orders pool connections" })).results.some(
          (r) => r.path === join(h.projects, key, "memory", "pool.md"),
        ),
      10_000,
    );
  });

  it("recall for Claude Code leaves out what the CLI loads itself for the session's directory; search keeps it", async () => {
    const h = claudeHome();
    writeFiles(h.memoryDir, {
      "MEMORY.md": "- [Tabs in Go](tabs_in_go.md) — Go indentation uses tabs, the reviewer's rule\n",
    });
    writeFiles(h.project, { "CLAUDE.md": "- Go indentation: tabs, as gofmt writes it.\n" });
    const d = await daemonFor(h);
    const query = "What indentation does the Go code use, tabs?";
    const paths = (r: { memories: { path: string }[] }) => r.memories.map((m) => m.path);
    const plain = paths(await d.call("memory.recall", { query }));
    expect(plain).toEqual(expect.arrayContaining([join(h.memoryDir, "MEMORY.md"), join(h.project, "CLAUDE.md")]));
    const forClaude = paths(await d.call("memory.recall", { query, host: "claude-code", cwd: h.project }));
    expect(forClaude).toContain(join(h.memoryDir, "tabs_in_go.md"));
    expect(forClaude).not.toContain(join(h.memoryDir, "MEMORY.md"));
    expect(forClaude).not.toContain(join(h.project, "CLAUDE.md"));
    // Below the project (no git repository): the CLI loads the CLAUDE.md above, but keys auto memory
    // by the directory itself, so the project's MEMORY.md was not loaded there.
    const below = paths(
      await d.call("memory.recall", { query, host: "claude-code", cwd: join(h.project, "services") }),
    );
    expect(below).not.toContain(join(h.project, "CLAUDE.md"));
    expect(below).toContain(join(h.memoryDir, "MEMORY.md"));
    // Another project's session gets them: the CLI did not load them there.
    const elsewhere = join(h.home, "code", "other");
    mkdirSync(elsewhere, { recursive: true });
    const other = paths(await d.call("memory.recall", { query, host: "claude-code", cwd: elsewhere }));
    expect(other).toEqual(expect.arrayContaining([join(h.memoryDir, "MEMORY.md"), join(h.project, "CLAUDE.md")]));
    const searched = (await d.call("memory.search", { query })).results.map((r) => r.path);
    expect(searched).toEqual(expect.arrayContaining([join(h.memoryDir, "MEMORY.md"), join(h.project, "CLAUDE.md")]));
  });

  it("autoMemoryEnabled: false: the auto-memory folder is not indexed (the CLAUDE.md files are)", async () => {
    const h = claudeHome({ settings: { autoMemoryEnabled: false } });
    const d = await daemonFor(h);
    expect((await d.call("memory.search", { query: "indent Go tabs gofmt" })).results.map((r) => r.path)).not.toContain(
      join(h.memoryDir, "tabs_in_go.md"),
    );
    expect((await d.call("memory.search", { query: "make lint before any commit" })).results.length).toBeGreaterThan(0);
  });

  it("autoMemoryDirectory: that folder is indexed instead", async () => {
    const custom = tempDir("cortexd-ccmem-custom-");
    writeFiles(custom, {
      "deploys.md": "---\nname: deploys\ndescription: approvals\ntype: project\n---\n- Deploys need two approvals.\n",
    });
    const h = claudeHome({ settings: { autoMemoryDirectory: custom } });
    const d = await daemonFor(h);
    const hits = (await d.call("memory.search", { query: "deploys two approvals" })).results.map((r) => r.path);
    expect(hits).toContain(join(custom, "deploys.md"));
    expect((await d.call("memory.search", { query: "indent Go tabs gofmt" })).results.map((r) => r.path)).not.toContain(
      join(h.memoryDir, "tabs_in_go.md"),
    );
  });
});
