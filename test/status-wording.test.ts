import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { nextRun } from "../src/cli/commands/status.js";
import { runCliAsync } from "./helpers/cli.js";
import { startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

let daemon: TestDaemon | null = null;
afterEach(async () => {
  await daemon?.stop();
  daemon = null;
});

describe("`cortexd status` in words a person understands (real daemon and CLI)", () => {
  it("no searches yet, explained knowledge tier, next runs in the future, a restart a reload could not apply", async () => {
    const home = tempDir("cortexd-home-");
    const ws = join(home, "ws");
    const other = join(home, "other");
    writeFiles(ws, { "MEMORY.md": "# Memory\n- the build server is ci-2\n" });
    writeFiles(other, { "MEMORY.md": "# Memory\n- other\n" });
    daemon = await startDaemon({ home, config: { workspaces: [{ path: ws }] } });

    const st = await runCliAsync(["status"], daemon.env);
    expect(st.code, st.stderr).toBe(0);
    expect(st.stdout).toMatch(/^searches: +none since start$/m);
    expect(st.stdout).toMatch(/^knowledge: cold \(tier 1: under 3 files or 10 chunks, little to recall yet\)/m);
    expect(st.stdout).not.toMatch(/next 0s ago|next \d+\S* ago/);
    expect(st.stdout).toMatch(/heartbeat .*next (in \d|due now)/);

    // A reload that cannot apply a change says so in status, not only in the JSON log.
    const file = join(home, ".config", "cortexd", "config.json");
    const cfg = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...cfg, workspaces: [{ path: ws }, { path: other }] }));
    daemon.child.kill("SIGHUP");
    await waitUntil(async () => /RESTART NEEDED/.test((await runCliAsync(["status"], daemon!.env)).stdout), 20_000);
    const after = await runCliAsync(["status", "--json"], daemon.env);
    expect(JSON.parse(after.stdout).restartNeeded).toEqual(["workspaces"]);
    const text = await runCliAsync(["status"], daemon.env);
    expect(text.stdout).toMatch(
      /RESTART NEEDED: the config's workspaces changed since start; `cortexd restart` applies it/,
    );
  });

  it("the next run of a job whose time has come is 'due now', never 'ago'", () => {
    const now = Date.parse("2026-12-05T12:00:00Z");
    expect(nextRun("2026-12-05T12:00:00Z", now)).toBe("due now");
    expect(nextRun("2026-12-05T11:59:59.600Z", now)).toBe("due now");
    expect(nextRun("2026-12-05T12:04:10Z", now)).toBe("in 4m 10s");
    expect(nextRun(null, now)).toBe("not scheduled");
  });
});
