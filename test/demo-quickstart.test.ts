import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isolatedEnv, runCli } from "./helpers/cli.js";
import { waitUntil } from "./helpers/daemon.js";
import { tempDir } from "./helpers/workspace.js";

/**
 * `npm start` (the demo) on a fresh HOME: it runs on its own config, data dir and socket in a temp
 * dir, the README's quick start pasted whole (one bash script) talks to it and finds the edit it
 * made, the user's config and data dir are never created, and stopping the demo removes its dir.
 */
const ROOT = resolve(import.meta.dirname, "..");
const DEMO = join(ROOT, "dist", "scripts", "demo", "main.js");

function quickStart(): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Quick start"));
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks[1]!; // the second block: what to paste in another terminal
}

describe("the demo and the README's quick start", () => {
  const home = tempDir("cortexd-home-");
  const tmp = tempDir("cortexd-tmp-");
  const env = { ...process.env, ...isolatedEnv(home), TMPDIR: tmp, CORTEXD_LOG_LEVEL: "info" };
  const demoDir = join(tmp, `cortexd-demo-${process.getuid?.() ?? "user"}`);
  const demo = spawn(process.execPath, [DEMO], { env, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  demo.stdout!.on("data", (d) => (log += d));
  demo.stderr!.on("data", (d) => (log += d));
  const exited = new Promise<number | null>((r) => demo.on("exit", (c) => r(c)));
  afterAll(() => {
    demo.kill("SIGKILL");
  });

  it("the quick start pasted whole finds the edit; the user's data dir stays untouched; the demo cleans up", async () => {
    const statusEnv = { ...isolatedEnv(home), TMPDIR: tmp, CORTEXD_CONFIG: join(demoDir, "config.json") };
    // "When it logs that it is ready": the socket answers and the model is loaded (built, the first time).
    await waitUntil(() => {
      const st = runCli(["status", "--json"], statusEnv);
      return st.code === 0 && (JSON.parse(st.stdout) as { embedding: { state: string } }).embedding.state === "ready";
    }, 240_000);
    expect(existsSync(join(demoDir, "run", "cortexd.sock")), log).toBe(true);

    const script = quickStart();
    expect(script).toContain("sleep");
    const r = spawnSync("bash", ["-c", script], {
      cwd: ROOT,
      env: { ...env, CORTEXD_LOG_LEVEL: "warn" },
      encoding: "utf8",
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const last = r.stdout.slice(r.stdout.lastIndexOf("memory/"));
    expect(r.stdout, r.stderr).toContain("Wednesdays");
    expect(last.length).toBeGreaterThan(0);
    expect(r.stderr).not.toMatch(/error|keyword search/i);

    // The user's own config, data dir and default socket were never made.
    expect(existsSync(join(home, ".local", "share", "cortexd"))).toBe(false);
    expect(existsSync(join(home, ".config", "cortexd"))).toBe(false);
    expect(existsSync(join(home, "run", "cortexd"))).toBe(false);

    demo.kill("SIGINT");
    await exited;
    expect(existsSync(join(demoDir, "workspace"))).toBe(false);
    expect(existsSync(join(demoDir, "config.json"))).toBe(false);
    expect(existsSync(join(demoDir, "run"))).toBe(false);
    expect(existsSync(join(demoDir, "data", "indexes"))).toBe(false);
  }, 300_000);
});

describe("the demo on the user's own workspace (npm start -- -w DIR)", () => {
  const home = tempDir("cortexd-home-");
  const tmp = tempDir("cortexd-tmp-");
  const mine = tempDir("cortexd-mine-");
  mkdirSync(join(mine, "notes", "memory"), { recursive: true });
  writeFileSync(join(mine, "notes", "MEMORY.md"), "# Memory\n\n- The Lyon office opens on Mondays.\n");
  // npm runs the script from the package root and says where it was run from in INIT_CWD.
  const env = { ...process.env, ...isolatedEnv(home), TMPDIR: tmp, INIT_CWD: mine, CORTEXD_LOG_LEVEL: "warn" };
  const demoDir = join(tmp, `cortexd-demo-${process.getuid?.() ?? "user"}`);
  const cliEnv = { ...isolatedEnv(home), TMPDIR: tmp, CORTEXD_CONFIG: join(demoDir, "config.json") };

  it("a path that is not there is refused with what to give, and nothing runs", () => {
    const r = spawnSync(process.execPath, [DEMO, "-w", "nope"], { env, encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`no such directory: ${join(mine, "nope")}`);
    expect(existsSync(join(demoDir, "config.json"))).toBe(false);
  });

  it("indexes that workspace (a relative path, from where npm ran), which the demo's config names; it is left in place", async () => {
    const demo = spawn(process.execPath, [DEMO, "-w", "notes"], { env, stdio: ["ignore", "pipe", "pipe"] });
    let log = "";
    demo.stdout!.on("data", (d) => (log += d));
    demo.stderr!.on("data", (d) => (log += d));
    let exitCode: number | null | undefined;
    const exited = new Promise<number | null>((r) => demo.on("exit", (c) => r((exitCode = c))));
    try {
      let found = "";
      await waitUntil(
        () => {
          if (exitCode !== undefined) expect.fail(`the demo exited (${exitCode}):\n${log}`);
          const r = runCli(["search", "Lyon office", "--json"], cliEnv);
          found = r.stdout;
          return r.code === 0 && r.stdout.includes("MEMORY.md");
        },
        120_000,
        500,
      ).catch(() => expect.fail(`never found the line; demo log:\n${log}\nlast search: ${found}`));
      const config = JSON.parse(readFileSync(join(demoDir, "config.json"), "utf8")) as {
        workspaces: { path: string }[];
      };
      expect(config.workspaces).toEqual([{ path: join(mine, "notes") }]);
    } finally {
      demo.kill("SIGINT");
      await exited;
    }
    expect(readFileSync(join(mine, "notes", "MEMORY.md"), "utf8")).toContain("Lyon office");
    expect(existsSync(join(demoDir, "config.json"))).toBe(false);
  }, 180_000);
});
