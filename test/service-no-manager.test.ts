import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SERVICE_EXIT } from "../src/service/login-fallback.js";
import { isolatedEnv, runCli } from "./helpers/cli.js";
import { tempDir } from "./helpers/workspace.js";

/**
 * A machine without systemd --user (a container, WSL without systemd, CI): an isolated
 * XDG_RUNTIME_DIR and no session bus mean systemctl --user has no manager to talk to, whatever
 * the host runs (and a host without systemctl at all is the same case).
 */
function noBusEnv(home: string): Record<string, string> {
  return isolatedEnv(home, { DBUS_SESSION_BUS_ADDRESS: "", SHELL: "/bin/bash" });
}

describe.runIf(process.platform === "linux")("service install without systemd --user", () => {
  it("writes the unit, says how to start cortexd at login instead, and exits 69", () => {
    const home = tempDir("cortexd-home-");
    mkdirSync(join(home, ".openclaw", "workspace"), { recursive: true });
    const r = runCli(["service", "install"], noBusEnv(home));
    expect(r.code, r.stdout + r.stderr).toBe(SERVICE_EXIT.noServiceManager);
    expect(r.stdout).toContain("systemd --user is not available here");
    expect(r.stdout).toMatch(/echo '.*cortexd start >\/dev\/null 2>&1 \|\| true' >> ~\/\.profile/);
    expect(existsSync(join(home, ".config", "systemd", "user", "cortexd.service"))).toBe(true);

    const json = runCli(["service", "install", "--json"], noBusEnv(home));
    expect(json.code).toBe(SERVICE_EXIT.noServiceManager);
    expect(JSON.parse(json.stdout)).toMatchObject({ written: true, noServiceManager: true });
  });

  it("`init --service` still completes the setup (exit 0) and says what to run", () => {
    const home = tempDir("cortexd-home-");
    mkdirSync(join(home, ".openclaw", "workspace"), { recursive: true });
    const r = runCli(["init", "--yes", "--service"], noBusEnv(home));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(existsSync(join(home, ".config", "cortexd", "config.json"))).toBe(true);
    expect(r.stdout).toContain("systemd --user is not available here");
    expect(r.stdout).toMatch(/next: +cortexd start/);
    const json = runCli(["init", "--yes", "--service", "--json"], noBusEnv(home));
    expect(JSON.parse(json.stdout).service).toMatchObject({ noServiceManager: true });
    expect(readFileSync(join(home, ".config", "cortexd", "config.json"), "utf8")).toContain("workspace");
  });
});
