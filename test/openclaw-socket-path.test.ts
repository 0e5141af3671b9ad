import { describe, expect, it } from "vitest";
import { defaultSocketPath } from "../integrations/openclaw/index.js";
import { resolveSocketPath } from "../src/rpc/socket-path.js";

/**
 * The plugin's dependency-free copy of the socket path rules must find the socket where the daemon
 * listens: both run on the same environments (the daemon takes CORTEXD_DATA_DIR as its data dir).
 */

const long = "/tmp/" + "d".repeat(120);
const cases: { name: string; env: NodeJS.ProcessEnv; platform: NodeJS.Platform }[] = [
  { name: "CORTEXD_SOCKET", env: { HOME: "/home/u", CORTEXD_SOCKET: "/run/x/cortexd.sock" }, platform: "linux" },
  {
    name: "CORTEXD_SOCKET with spaces around it",
    env: { HOME: "/home/u", CORTEXD_SOCKET: "  /run/x/cortexd.sock \n" },
    platform: "linux",
  },
  {
    name: "CORTEXD_SOCKET of blanks only",
    env: { HOME: "/home/u", CORTEXD_SOCKET: "   ", XDG_RUNTIME_DIR: "/run/user/1000" },
    platform: "linux",
  },
  {
    name: "CORTEXD_SOCKET with ~",
    env: { HOME: "/home/u", CORTEXD_SOCKET: "~/.cortexd/cortexd.sock" },
    platform: "linux",
  },
  { name: "CORTEXD_SOCKET relative", env: { HOME: "/home/u", CORTEXD_SOCKET: "run/cortexd.sock" }, platform: "linux" },
  { name: "XDG_RUNTIME_DIR", env: { HOME: "/home/u", XDG_RUNTIME_DIR: "/run/user/1000" }, platform: "linux" },
  {
    name: "XDG_RUNTIME_DIR with a trailing slash",
    env: { HOME: "/home/u", XDG_RUNTIME_DIR: "/run/user/1000/" },
    platform: "linux",
  },
  { name: "XDG_DATA_HOME", env: { HOME: "/home/u", XDG_DATA_HOME: "/data/xdg" }, platform: "linux" },
  { name: "CORTEXD_DATA_DIR", env: { HOME: "/home/u", CORTEXD_DATA_DIR: "~/cortex-data" }, platform: "linux" },
  { name: "HOME only", env: { HOME: "/home/u" }, platform: "linux" },
  {
    name: "XDG_RUNTIME_DIR too long: falls back to the data dir",
    env: { HOME: "/home/u", XDG_RUNTIME_DIR: long },
    platform: "linux",
  },
  { name: "macOS", env: { HOME: "/Users/u" }, platform: "darwin" },
  {
    name: "macOS, HOME too long: $TMPDIR/cortexd-<uid>",
    env: { HOME: long, TMPDIR: "/var/folders/ab/T/" },
    platform: "darwin",
  },
  {
    name: "macOS ignores XDG_RUNTIME_DIR",
    env: { HOME: "/Users/u", XDG_RUNTIME_DIR: "/run/user/501" },
    platform: "darwin",
  },
];

describe("OpenClaw plugin socket path = the daemon's", () => {
  for (const c of cases) {
    it(c.name, () => {
      const daemon = resolveSocketPath({
        env: c.env,
        platform: c.platform,
        uid: 501,
        ...(c.env.CORTEXD_DATA_DIR ? { dataDir: c.env.CORTEXD_DATA_DIR } : {}),
      });
      expect(defaultSocketPath(c.env, { platform: c.platform, uid: 501 })).toBe(daemon);
    });
  }

  it("refuses the same too-long paths, with the same message", () => {
    const env = { HOME: long, CORTEXD_SOCKET: `${long}/cortexd.sock` };
    expect(() => resolveSocketPath({ env, platform: "linux" })).toThrow(/too long/);
    expect(() => defaultSocketPath(env, { platform: "linux" })).toThrow(/too long/);
    let a = "";
    let b = "";
    try {
      resolveSocketPath({ env, platform: "linux" });
    } catch (e) {
      a = String((e as Error).message);
    }
    try {
      defaultSocketPath(env, { platform: "linux" });
    } catch (e) {
      b = String((e as Error).message);
    }
    expect(b).toBe(a);
  });
});
