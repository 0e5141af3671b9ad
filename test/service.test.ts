import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { LAUNCHD_LABEL, REFERENCE_SPEC, launchdPlist, systemdUnit } from "../src/service/units.js";
import { CLI, isolatedEnv, runCli } from "./helpers/cli.js";
import { tempDir } from "./helpers/workspace.js";

const ROOT = resolve(import.meta.dirname, "..");
const hasSystemdAnalyze = spawnSync("systemd-analyze", ["--version"]).status === 0;

describe("service files", () => {
  it("`service install --dry-run` prints a user unit that runs this cortexd with absolute paths", () => {
    const home = tempDir();
    mkdirSync(join(home, "ws", "memory"), { recursive: true }); // install refuses a workspace that does not exist
    writeFileSync(join(home, "c.json"), JSON.stringify({ workspaces: [{ path: join(home, "ws") }] }));
    const r = runCli(["service", "install", "--dry-run", "--config", join(home, "c.json")], isolatedEnv(home));
    expect(r.code, r.stderr).toBe(0);
    const unit = r.stdout;
    expect(unit).toContain(`ExecStart=${process.execPath} ${CLI} run --config ${join(home, "c.json")}`);
    expect(unit).toMatch(/^Restart=on-failure$/m);
    expect(unit).toMatch(/^WantedBy=default.target$/m);
    expect(unit).toMatch(/^ExecReload=\/bin\/kill -HUP \$MAINPID$/m);
    // Documentation= is the installed docs page on running at login, which exists (not a registry page).
    expect(unit).toContain(`Documentation=file:${join(ROOT, "docs", "cli.md")}`);
    expect(existsSync(join(ROOT, "docs", "cli.md"))).toBe(true);
    expect(unit.split("\n")[0]).toBe(`# ${join(home, ".config", "systemd", "user", "cortexd.service")}`);
  });

  it.runIf(hasSystemdAnalyze)("the generated unit passes systemd-analyze verify", () => {
    const home = tempDir();
    mkdirSync(join(home, ".openclaw", "workspace"), { recursive: true }); // the default workspace, which install requires to exist
    const r = runCli(["service", "install", "--no-enable"], isolatedEnv(home));
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const written = join(home, ".config", "systemd", "user", "cortexd.service");
    expect(existsSync(written)).toBe(true);
    const copy = join(tempDir(), "cortexd.service");
    copyFileSync(written, copy);
    const v = spawnSync("systemd-analyze", ["verify", copy], { encoding: "utf8" });
    expect(v.status, v.stderr).toBe(0);
  });

  it("the launchd agent runs at load and is kept alive, with escaped arguments", () => {
    const plist = launchdPlist({
      node: "/opt/node/bin/node",
      main: "/opt/cortexd/dist/src/cli/main.js",
      args: ["--config", "/Users/a&b/c.json"],
      logDir: "/tmp/l",
    });
    expect(plist).toContain(`<string>${LAUNCHD_LABEL}</string>`);
    expect(plist).toMatch(/<key>RunAtLoad<\/key>\s*<true\/>/);
    expect(plist).toMatch(/<key>KeepAlive<\/key>\s*<dict>\s*<key>SuccessfulExit<\/key>\s*<false\/>/);
    expect(plist).toContain("<string>/Users/a&amp;b/c.json</string>");
    expect(plist).toContain("<string>run</string>");
  });

  it("the reference files in systemd/ and launchd/ are what the generator produces", () => {
    expect(readFileSync(join(ROOT, "systemd", "cortexd.service"), "utf8")).toBe(systemdUnit(REFERENCE_SPEC));
    expect(readFileSync(join(ROOT, "launchd", `${LAUNCHD_LABEL}.plist`), "utf8")).toBe(
      launchdPlist({ ...REFERENCE_SPEC, logDir: "/tmp" }),
    );
  });
});
