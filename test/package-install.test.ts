import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, renameSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../src/version.js";
import { isolatedEnv, runCli } from "./helpers/cli.js";
import { startNpmMirror, type NpmMirror } from "./helpers/npm-mirror.js";
import { tempDir } from "./helpers/workspace.js";

/**
 * The real package: `npm pack`, then `npm install -g ./cortexd-<v>.tgz` into a temp prefix, with
 * no network: npm starts from an empty cache and reaches only 127.0.0.1, where an offline
 * machine's registry mirror holds the lockfile's packages (their tarballs from the cache `npm ci`
 * filled; test/helpers/npm-mirror.ts) and better-sqlite3's prebuilt binary (a tarball of the one
 * this checkout built; npm_config_better_sqlite3_binary_host, docs/troubleshooting.md), so the
 * test does not spend minutes compiling SQLite. Every other host goes through a proxy that is not
 * there. Then the installed cortexd sets up a fresh HOME and everything it writes points into the
 * installed package, not this source tree.
 */
const ROOT = resolve(import.meta.dirname, "..");

function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv }) {
  // Async: the binary mirror answers from this process while npm runs.
  return new Promise<{ code: number | null; out: string }>((done) => {
    const child = spawn(cmd, args, { ...opts, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => done({ code, out }));
  });
}

describe("installed from the packed tarball", () => {
  const work = tempDir("cortexd-pkg-");
  const prefix = join(work, "prefix");
  const installed = join(prefix, "lib", "node_modules", "cortexd");
  let mirror: NpmMirror;
  let install: { code: number | null; out: string };
  const npmCache = spawnSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).stdout.trim();

  beforeAll(async () => {
    const pack = await run("npm", ["pack", "--pack-destination", work], { cwd: ROOT });
    expect(pack.code, pack.out).toBe(0);
    const tgz = join(work, `cortexd-${VERSION}.tgz`);
    // The prebuilt binary, as prebuild-install names it, served from 127.0.0.1.
    const abi = process.versions.modules;
    const sqliteVersion = (
      JSON.parse(readFileSync(join(ROOT, "node_modules/better-sqlite3/package.json"), "utf8")) as {
        version: string;
      }
    ).version;
    const name = `better-sqlite3-v${sqliteVersion}-node-v${abi}-${process.platform}-${process.arch}.tar.gz`;
    mkdirSync(join(work, "mirror"));
    const tar = spawnSync("tar", [
      "czf",
      join(work, "mirror", name),
      "-C",
      join(ROOT, "node_modules/better-sqlite3"),
      "build/Release/better_sqlite3.node",
    ]);
    expect(tar.status).toBe(0);
    const binary = `/v${sqliteVersion}/${name}`;
    mirror = await startNpmMirror(join(ROOT, "package-lock.json"), npmCache, {
      [binary]: join(work, "mirror", name),
    });
    install = await run(
      "npm",
      ["install", "-g", tgz, "--prefix", prefix, "--no-audit", "--no-fund", "--foreground-scripts"],
      {
        cwd: work,
        env: {
          ...process.env,
          HOME: join(work, "npm-home"),
          npm_config_cache: join(work, "empty-npm-cache"),
          npm_config_registry: mirror.url,
          npm_config_proxy: mirror.url,
          npm_config_https_proxy: mirror.url,
          npm_config_fetch_retries: "0",
          npm_config_update_notifier: "false",
          npm_config_better_sqlite3_binary_host: mirror.url,
          npm_config_nodedir: process.env.npm_config_nodedir ?? (existsSync("/usr/include/node/node.h") ? "/usr" : ""),
        },
      },
    );
    expect(mirror.served, "better-sqlite3's prebuilt binary came from the local mirror").toContain(binary);
  }, 900_000);

  afterAll(() => mirror?.close());

  const env = (home: string) =>
    isolatedEnv(home, { PATH: [join(prefix, "bin"), dirname(process.execPath), "/usr/bin", "/bin"].join(":") });
  const cortexd = (args: string[], home: string) =>
    spawnSync(join(prefix, "bin", "cortexd"), args, { env: env(home), encoding: "utf8", timeout: 120_000 });

  it("installs with no network, with the CLI, the hook entry, the OpenClaw plugin and the service files", () => {
    expect(install.code, install.out).toBe(0);
    expect(mirror.refused, "nothing tried to reach another host").toEqual([]);
    expect(mirror.missing, "every package npm asked for was on the mirror").toEqual([]);
    expect(mirror.served.filter((p) => p.endsWith(".tgz")).length).toBeGreaterThan(50);
    const v = cortexd(["--version"], tempDir("cortexd-home-"));
    expect(v.status, v.stderr).toBe(0);
    expect(v.stdout.trim()).toBe(VERSION);
    for (const f of [
      "bin/cortexd",
      "dist/src/cli/main.js",
      "dist/src/hooks/main.js",
      "integrations/openclaw/openclaw.plugin.json",
      "integrations/openclaw/index.js",
      "systemd/cortexd.service",
      "launchd/dev.cortexd.cortexd.plist",
    ])
      expect(existsSync(join(installed, f)), f).toBe(true);
    expect(existsSync(join(installed, "src")), "no sources in the package").toBe(false);
  });

  it("init on a fresh HOME writes hooks and a service that run the installed package", () => {
    const home = tempDir("cortexd-home-");
    mkdirSync(join(home, ".openclaw", "workspace"), { recursive: true });
    mkdirSync(join(home, ".claude"), { recursive: true });
    const r = cortexd(["init", "--yes", "--hooks", "claude-code", "--service"], home);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).not.toContain("development checkout");
    expect(r.stdout).toContain(`openclaw plugins install -l ${join(installed, "integrations", "openclaw")}`);
    const settings = readFileSync(join(home, ".claude", "settings.json"), "utf8");
    const commands = [...settings.matchAll(/"command": "([^"]*)"/g)].map((m) => m[1]!);
    expect(commands.length).toBeGreaterThan(0);
    for (const c of commands) {
      expect(c).toContain(join(installed, "bin", "cortexd"));
      expect(c).not.toContain(ROOT);
    }
    const unit = readFileSync(join(home, ".config", "systemd", "user", "cortexd.service"), "utf8");
    const exec = /^ExecStart=(.*)$/m.exec(unit)![1]!;
    expect(exec).toContain(join(installed, "dist", "src", "cli", "main.js"));
    expect(exec).not.toContain(ROOT);

    // The package moved away: status says the hooks and the service point at a path that is gone.
    renameSync(installed, `${installed}.moved`);
    try {
      const st = runCli(["status"], isolatedEnv(home));
      expect(st.stdout).toMatch(/WARNING: the Claude Code hooks in .*settings\.json run .*bin\/cortexd, which is gone/);
      expect(st.stdout).toMatch(/WARNING: the login service .*cortexd\.service runs .*main\.js, which is gone/);
    } finally {
      renameSync(`${installed}.moved`, installed);
    }
  });
});
