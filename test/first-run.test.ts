import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { isolatedEnv, runCli } from "./helpers/cli.js";
import { daemonsPerTest, startDaemon, waitUntil, writeConfig } from "./helpers/daemon.js";
import { tempDir } from "./helpers/workspace.js";

/** First runs as a new user meets them: a private HOME, the real CLI and daemon processes. */

const FIXTURE = resolve(import.meta.dirname, "fixtures/workspace");
const { track } = daemonsPerTest();

function homeWithWorkspace(): { home: string; ws: string; env: Record<string, string> } {
  const home = tempDir("cortexd-home-");
  const ws = join(home, "ws");
  cpSync(FIXTURE, ws, { recursive: true });
  return { home, ws, env: isolatedEnv(home, { CORTEXD_EMBEDDING_PROVIDER: "none" }) };
}

const indexes = (home: string) => {
  const dir = join(home, ".local", "share", "cortexd", "indexes");
  return existsSync(dir) ? readdirSync(dir).sort() : [];
};

describe("one workspace resolution (real CLI)", () => {
  it("hook install with a relative -w writes the absolute root, which the daemon accepts", () => {
    const { home, ws, env } = homeWithWorkspace();
    const r = runCli(["-w", "ws", "hook", "install", "claude-code", "--dry-run", "--json"], env, undefined, {
      cwd: home,
    });
    expect(r.code, r.stderr).toBe(0);
    const settings = JSON.parse(r.stdout).settings as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    const cmd = settings.hooks.UserPromptSubmit![0]!.hooks[0]!.command;
    expect(cmd).toContain(`--workspace ${ws}`);
    expect(cmd).not.toMatch(/--workspace "?ws"?( |$)/);
  });

  it("a missing dir, an unknown name or a dir without memory files: an error naming the known workspaces, exit 1, no index created (daemon down and up)", async () => {
    const { home, ws, env } = homeWithWorkspace();
    writeConfig(home, { workspaces: [{ path: ws, name: "main" }] });
    const empty = join(home, "empty");
    mkdirSync(empty);
    const check = (commands: string[][]) => {
      for (const sel of [join(home, "nonexistent", "dir"), "nosuchname", empty]) {
        for (const cmd of commands) {
          const r = runCli(["-w", sel, ...cmd], env);
          expect(r.code, `${sel} ${cmd[0]}: ${r.stdout}`).toBe(1);
          expect(r.stderr).toContain(`main → ${ws}`);
          expect(r.stdout).not.toContain("no results");
        }
      }
      expect(indexes(home).filter((f) => !f.startsWith("main."))).toEqual([]);
    };
    check([["search", "foo"], ["recall", "foo"], ["index"], ["save", "a note"]]);
    const d = track(await startDaemon({ home, env: { CORTEXD_EMBEDDING_PROVIDER: "none" } }));
    await waitUntil(async () => (await d.call("cortex.status", {})).workspaces[0]!.lastSync !== null, 30_000);
    check([
      ["search", "foo"],
      ["save", "a note"],
    ]);
    const st = runCli(["status", "--json"], env);
    expect(JSON.parse(st.stdout).workspaces.map((w: { root: string }) => w.root)).toEqual([ws]);
    // The daemon's own rule: a configured name or absolute root; a relative path is refused with a reason.
    await expect(d.call("memory.search", { query: "x", workspace: "./ws" })).rejects.toThrow(
      /relative path.*known workspaces: main →/,
    );
    const byName = runCli(["-w", "main", "search", "--json", "sourdough"], env);
    expect(JSON.parse(byName.stdout).results[0].path).toBe("memory/2026-11-26.md");
  }, 240_000); // 20 CLI processes: generous for a loaded machine

  it("-w given twice is refused outside `run`; `run` serves both", async () => {
    const { home, ws, env } = homeWithWorkspace();
    const ws2 = join(home, "ws2");
    cpSync(FIXTURE, ws2, { recursive: true });
    const r = runCli(["-w", ws, "-w", ws2, "search", "x"], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--workspace was given 2 times .*only `cortexd run`/);
    const d = track(await startDaemon({ home, args: ["-w", ws, "-w", ws2] }));
    const st = await d.call("cortex.status", {});
    expect(st.workspaces.map((w) => w.root)).toEqual([ws, ws2]);
  });

  it("no config and no ~/.openclaw/workspace: search fails like index, with the way out", () => {
    const home = tempDir("cortexd-home-");
    const env = isolatedEnv(home, { CORTEXD_EMBEDDING_PROVIDER: "none" });
    for (const cmd of [["search", "foo"], ["index"], ["recall", "foo"]]) {
      const r = runCli(cmd, env);
      expect(r.code, cmd[0]).toBe(1);
      expect(r.stderr, cmd[0]).toMatch(/\.openclaw\/workspace does not exist: .*cortexd init/);
    }
    expect(indexes(home)).toEqual([]);
  });
});

describe("a daemon whose workspace is missing", () => {
  it("says so once, readably, stays up, shows it in status as degraded with the fix", async () => {
    const home = tempDir("cortexd-home-");
    const missing = join(home, "gone");
    const d = track(
      await startDaemon({
        home,
        config: { workspaces: [{ path: missing }], daemon: { watch: "poll", pollIntervalMs: 250 } },
      }),
    );
    // Several polls later the problem is still said once, and no raw "sync failed" lines.
    await waitUntil(async () => (await d.call("cortex.status", {})).workspaces[0]!.missing === true, 10_000);
    await new Promise((r) => setTimeout(r, 2000));
    const said = d
      .stderr()
      .split("\n")
      .filter((l) => l.includes(`${missing} does not exist`));
    expect(said).toHaveLength(1);
    expect(d.stderr()).not.toContain("sync failed");
    const text = runCli(["status"], d.env);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/DEGRADED/);
    expect(text.stdout).toMatch(
      /MISSING: workspace root .*gone does not exist: create it with `cortexd init --workspace/,
    );
    const st = JSON.parse(runCli(["status", "--json"], d.env).stdout);
    expect(st).toMatchObject({ healthy: false, workspaces: [{ root: missing, missing: true }] });
    expect(st.errors.length).toBeLessThanOrEqual(1);
  });

  it("prints a start-up summary (workspaces, files, chunks, model, socket) and a line when it stops", async () => {
    const { home, ws } = homeWithWorkspace();
    const d = track(await startDaemon({ home, config: { workspaces: [{ path: ws }] } }));
    await waitUntil(() => d.stderr().includes("ready:"), 30_000);
    expect(d.stderr()).toMatch(
      new RegExp(`ready: 1 workspace, 7 files, \\d+ chunks; keyword-only \\(.*\\); socket ${d.socket}`),
    );
    expect(d.stderr()).toContain(`  ws-`);
    await d.stop();
    expect(d.stderr()).toMatch(/cortexd \d+ stopped \(signal SIGTERM\)/);
  });
});

describe("logs", () => {
  it("JSON lines when stderr is not a terminal, readable lines with CORTEXD_LOG_FORMAT=pretty (what a terminal gets)", async () => {
    const home = tempDir("cortexd-home-");
    const json = track(await startDaemon({ home, config: { workspaces: [{ path: join(home, "gone") }] } }));
    await waitUntil(() => json.stderr().includes("does not exist"), 10_000);
    const line = json
      .stderr()
      .split("\n")
      .find((l) => l.includes("does not exist"))!;
    expect(JSON.parse(line)).toMatchObject({ level: 40, msg: expect.stringContaining("cortexd init") });
    await json.stop();
    const pretty = track(await startDaemon({ home, env: { CORTEXD_LOG_FORMAT: "pretty" } }));
    await waitUntil(() => pretty.stderr().includes("does not exist"), 10_000);
    const p = pretty
      .stderr()
      .split("\n")
      .find((l) => l.includes("does not exist"))!;
    expect(p).toMatch(/WARN.*: workspace root .*gone does not exist/);
    expect(() => JSON.parse(p)).toThrow();
  });
});

describe("messages say things once", () => {
  it("stop / status when not running, run when already running", async () => {
    const { home, ws, env } = homeWithWorkspace();
    const stop = runCli(["stop"], env);
    expect(stop.stdout).toMatch(/^cortexd is not running \(no socket at /);
    expect(stop.stdout).not.toMatch(/not running \(cortexd is not running/);
    const status = runCli(["status"], env);
    expect(status.stdout).toMatch(/^cortexd \S+: not running \(no socket at /);
    const d = track(await startDaemon({ home, config: { workspaces: [{ path: ws }] } }));
    const again = runCli(["run"], d.env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^cortexd is already running \(pid \d+\)/);
  });

  it("subcommand --help shows the global options; hook --help lists every hook option", () => {
    const env = isolatedEnv(tempDir("cortexd-home-"));
    const search = runCli(["search", "--help"], env).stdout;
    expect(search).toContain("--workspace");
    expect(search).toContain("--json");
    const hook = runCli(["hook", "--help"], env).stdout;
    for (const o of ["--timeout-ms", "--budget", "--scope", "--socket", "--settings", "--dry-run", "--workspace"])
      expect(hook, o).toContain(o);
  });
});

describe("service install", () => {
  it("--dry-run --json prints the unit as JSON, with no duplicate PATH entries", () => {
    const { home, ws, env } = homeWithWorkspace();
    writeConfig(home, { workspaces: [{ path: ws }] });
    const r = runCli(["service", "install", "--dry-run", "--json"], { ...env, PATH: `/usr/bin:${process.env.PATH}` });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { path: string; content: string; written: boolean };
    expect(out.written).toBe(false);
    expect(out.content).toContain("ExecStart=");
    const path = /PATH=([^"\n]+)/.exec(out.content)![1]!.split(":");
    expect(path.length).toBe(new Set(path).size);
  });

  it("refuses when the configured workspace does not exist, with the fix", () => {
    const home = tempDir("cortexd-home-");
    const env = isolatedEnv(home);
    const r = runCli(["service", "install", "--dry-run"], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\.openclaw\/workspace does not exist: .*cortexd init/);
    writeFileSync(join(home, "x"), "");
  });
});
