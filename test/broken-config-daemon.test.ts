import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeDaemon } from "../src/client/client.js";
import { startDaemon, type TestDaemon } from "./helpers/daemon.js";
import { runCliAsync } from "./helpers/cli.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

let daemon: TestDaemon | null = null;
afterEach(async () => {
  await daemon?.stop();
  daemon = null;
});

describe("a typo in the config does not lock the user out of the running daemon (real daemon and CLI)", () => {
  it("stop stops it; restart refuses before stopping and says what to fix; status says both", async () => {
    const home = tempDir("cortexd-home-");
    const ws = join(home, "ws");
    writeFiles(ws, { "MEMORY.md": "# Memory\n- the build server is ci-2\n" });
    daemon = await startDaemon({ home, config: { workspaces: [{ path: ws }] } });
    const file = join(home, ".config", "cortexd", "config.json");
    const cfg = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...cfg, daemon: { debounceMs: "fast" } }));

    const restart = await runCliAsync(["restart"], daemon.env);
    expect(restart.code).toBe(78);
    expect(restart.stderr).toMatch(/daemon\.debounceMs/);
    expect(restart.stderr).toMatch(/cortexd stop/);
    expect((await probeDaemon(daemon.socket, 1000)).up).toBe(true); // left running

    const status = await runCliAsync(["status"], daemon.env);
    expect(status.code, status.stderr).toBe(0); // the running daemon answers
    const stop = await runCliAsync(["stop"], daemon.env);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toMatch(/cortexd stopped \(pid \d+\)/);
    expect(await daemon.exited()).toBe(0);
    expect((await probeDaemon(daemon.socket, 1000)).up).toBe(false);

    const down = await runCliAsync(["status"], daemon.env);
    expect(down.code).toBe(3); // not running (not "bad config")
    expect(down.stdout).toMatch(/not running/);
    expect(down.stdout).toMatch(/INVALID: .*daemon\.debounceMs/);
  });
});
