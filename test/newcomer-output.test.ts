import { cpSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { formatEta } from "../src/cli/progress-eta.js";
import { ensureTinyTestModel } from "./fixtures/embed/tiny-model.js";
import { isolatedEnv, runCli } from "./helpers/cli.js";
import { tempDir } from "./helpers/workspace.js";

const EXAMPLE = resolve(import.meta.dirname, "fixtures/workspace");

describe("what a newcomer reads in the first hour (real CLI processes, fresh HOME)", () => {
  it("`index --force` counts each file once (7 files: 7 changed, not 14)", async () => {
    const home = tempDir();
    const ws = join(home, "ws");
    cpSync(EXAMPLE, ws, { recursive: true });
    const env = isolatedEnv(home, { CORTEXD_MODEL: await ensureTinyTestModel() });
    expect(runCli(["index", "--workspace", ws], env).code).toBe(0);
    const forced = runCli(["index", "--workspace", ws, "--force", "--json"], env);
    expect(forced.code, forced.stderr).toBe(0);
    const report = JSON.parse(forced.stdout).reports[0];
    expect(report).toMatchObject({ added: 0, changed: 7, removed: 0 });
  });

  it("the progress bar's ETA is a duration or '…', never NaN, Infinity or negative", () => {
    expect(formatEta(0, 3001, 5000)).toBe("…");
    expect(formatEta(100, 3001, 500)).toBe("…");
    expect(formatEta(3072, 3001, 5000)).toBe("0s");
    expect(formatEta(1000, 3000, 10_000)).toBe("20s");
    expect(formatEta(10, 3000, 60_000)).toBe("4h 59m");
  });

  it("`init --dry-run --hooks claude-code` says the hooks it would install, and where", () => {
    const home = tempDir();
    mkdirSync(join(home, ".openclaw", "workspace"), { recursive: true });
    const r = runCli(["init", "--dry-run", "--hooks", "claude-code"], isolatedEnv(home));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`would install the Claude Code hooks in ${join(home, ".claude", "settings.json")}`);
  });

  it("init's OpenClaw step names the plugin's path and the command", () => {
    const home = tempDir();
    mkdirSync(join(home, ".openclaw", "workspace"), { recursive: true });
    const r = runCli(["init", "--yes"], isolatedEnv(home));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      `openclaw plugins install -l ${resolve(import.meta.dirname, "..", "integrations", "openclaw")} --force --accept-capabilities`,
    );
  });
});
