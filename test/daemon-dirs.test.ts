import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { prepareSocketDir, resolveSocketPath } from "../src/rpc/socket-path.js";
import { isolatedEnv, runCli } from "./helpers/cli.js";
import { daemonsPerTest, startDaemon, writeConfig } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

const { track } = daemonsPerTest();
const uid = process.getuid?.() ?? 0;

describe("the socket's directory", () => {
  it("CORTEXD_SOCKET in a 1777 directory: the daemon listens in its own <dir>/cortexd-<uid>/ and leaves the shared directory's mode alone", async () => {
    const shared = tempDir();
    chmodSync(shared, 0o1777);
    const root = tempDir();
    writeFiles(root, { "MEMORY.md": "- a note" });
    const sock = join(shared, "cx.sock");
    const placed = join(shared, `cortexd-${uid}`, "cx.sock");
    expect(resolveSocketPath({ env: { CORTEXD_SOCKET: sock } })).toBe(placed);
    const d = track(
      await startDaemon({ config: { workspaces: [{ path: root }] }, env: { CORTEXD_SOCKET: sock }, socket: placed }),
    );
    expect((await d.call("daemon.ping", {})).pong).toBe(true);
    expect(statSync(shared).mode & 0o7777).toBe(0o1777);
    expect(statSync(join(shared, `cortexd-${uid}`)).mode & 0o777).toBe(0o700);
    expect(statSync(placed).mode & 0o777).toBe(0o600);
    // Clients given the same setting find it.
    const st = runCli(["status", "--json"], { ...d.env, CORTEXD_SOCKET: sock });
    expect(st.stdout).toContain(placed);
  }, 30_000);

  it("never chmods a directory it did not create; refuses an unsafe one with a message", () => {
    const base = tempDir();
    const mine = join(base, "mine");
    mkdirSync(mine);
    chmodSync(mine, 0o755);
    expect(prepareSocketDir(join(mine, "c.sock"))).toEqual({ dir: mine, created: false });
    expect(statSync(mine).mode & 0o777).toBe(0o755);
    const open = join(base, "open");
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(() => prepareSocketDir(join(open, "c.sock"))).toThrow(
      /writable by others.*not created by cortexd.*CORTEXD_SOCKET/,
    );
    expect(statSync(open).mode & 0o777).toBe(0o777);
  });
});

describe("one daemon per data dir", () => {
  it("a second daemon on the same data dir with a different socket exits naming the first one's pid; the lock is <dataDir>/lock", async () => {
    const root = tempDir();
    writeFiles(root, { "MEMORY.md": "- a note" });
    const home = tempDir();
    const data = join(home, "shared-data");
    writeConfig(home, { workspaces: [{ path: root }], dataDir: data });
    const first = track(
      await startDaemon({
        home,
        env: { CORTEXD_SOCKET: join(home, "s1", "a.sock") },
        socket: join(home, "s1", "a.sock"),
      }),
    );
    const pid = first.child.pid!;
    expect(JSON.parse(readFileSync(join(data, "lock"), "utf8")).pid).toBe(pid);
    const second = runCli(
      ["run"],
      isolatedEnv(home, { CORTEXD_EMBEDDING_PROVIDER: "none", CORTEXD_SOCKET: join(home, "s2", "b.sock") }),
    );
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain(`pid ${pid}`);
    expect(second.stderr).toContain(data);
    expect(existsSync(join(home, "s2", "b.sock"))).toBe(false);
    expect((await first.call("daemon.ping", {})).pong).toBe(true);
    await first.stop();
    expect(existsSync(join(data, "lock"))).toBe(false);
  }, 60_000);
});
