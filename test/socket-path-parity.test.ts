import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { defaultSocketPath } from "../integrations/openclaw/index.js";
import { loadConfig } from "../src/config/load.js";
import { socketPathFor } from "../src/daemon/socket.js";
import { clientSocketPath } from "../src/client/socket-target.js";
import { resolveSocketPath } from "../src/rpc/socket-path.js";
import { LAUNCHER } from "./helpers/hooks.js";

/**
 * Every party finds the socket where the daemon listens: the daemon (config loaded, socketPathFor),
 * the CLI and hooks in Node (clientSocketPath), the shell fast path bin/cortexd (run as a process: it
 * must hand the hook to Node whenever the daemon's socket exists, and answer alone when it does not)
 * and the OpenClaw plugin's client (imported). Real directories under a short temp root.
 */

const root = mkdtempSync("/tmp/cdsp-");
afterAll(() => rmSync(root, { recursive: true, force: true }));
const uid = process.getuid?.() ?? 0;

interface Case {
  name: string;
  /** Builds the files and returns the environment. */
  setup: (dir: string) => NodeJS.ProcessEnv;
  /** The OpenClaw plugin reads no cortexd config file: it is configured by its own socketPath. */
  openclaw?: false;
  /** bin/cortexd cannot decide it in shell (a config file that may move the socket, a padded path): Node does. */
  shellDefers?: true;
  /** Where the daemon listens on another platform (bin/cortexd checks every platform's defaults). */
  platform?: NodeJS.Platform;
}

const cases: Case[] = [
  { name: "CORTEXD_SOCKET", setup: (d) => ({ HOME: join(d, "h"), CORTEXD_SOCKET: join(d, "s", "x.sock") }) },
  {
    name: "CORTEXD_SOCKET with spaces around it",
    shellDefers: true,
    setup: (d) => ({ HOME: join(d, "h"), CORTEXD_SOCKET: `  ${join(d, "s", "x.sock")} \n` }),
  },
  {
    name: "CORTEXD_SOCKET of blanks only",
    shellDefers: true,
    setup: (d) => ({ HOME: join(d, "h"), CORTEXD_SOCKET: "   ", XDG_RUNTIME_DIR: join(d, "run") }),
  },
  { name: "CORTEXD_SOCKET with ~", setup: (d) => ({ HOME: join(d, "h"), CORTEXD_SOCKET: "~/s/x.sock" }) },
  {
    name: "CORTEXD_SOCKET in a directory others can write to (1777): cortexd-<uid>/ inside it",
    setup: (d) => {
      mkdirSync(join(d, "shared"));
      chmodSync(join(d, "shared"), 0o1777);
      return { HOME: join(d, "h"), CORTEXD_SOCKET: join(d, "shared", "x.sock") };
    },
  },
  { name: "XDG_RUNTIME_DIR", setup: (d) => ({ HOME: join(d, "h"), XDG_RUNTIME_DIR: join(d, "run") }) },
  { name: "XDG_DATA_HOME", setup: (d) => ({ HOME: join(d, "h"), XDG_DATA_HOME: join(d, "xdg") }) },
  { name: "CORTEXD_DATA_DIR", setup: (d) => ({ HOME: join(d, "h"), CORTEXD_DATA_DIR: join(d, "data") }) },
  { name: "HOME only", setup: (d) => ({ HOME: join(d, "h") }) },
  {
    name: "XDG_RUNTIME_DIR too long: the data dir",
    setup: (d) => ({ HOME: join(d, "h"), XDG_RUNTIME_DIR: join(d, "r".repeat(110)) }),
  },
  {
    name: "macOS, HOME too long for a socket: $TMPDIR/cortexd-<uid>",
    platform: "darwin",
    setup: (d) => ({ HOME: join(d, "h".repeat(110)), TMPDIR: join(d, "T") + "/" }),
  },
  {
    name: "the config file's daemon.socketPath (JSON with comments)",
    openclaw: false,
    shellDefers: true,
    setup: (d) => {
      const file = join(d, "config.json");
      writeFileSync(
        file,
        `{\n  // where to listen\n  "daemon": { "socketPath": "${join(d, "cfg", "c.sock")}", },\n}\n`,
      );
      return { HOME: join(d, "h"), CORTEXD_CONFIG: file };
    },
  },
  {
    name: "the config file's dataDir",
    openclaw: false,
    shellDefers: true,
    setup: (d) => {
      const file = join(d, "h", ".config", "cortexd", "config.json");
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `/* data */ { "dataDir": "~/elsewhere" }`);
      return { HOME: join(d, "h") };
    },
  },
  {
    name: "CORTEXD_SOCKET wins over the config file",
    openclaw: false,
    shellDefers: true,
    setup: (d) => {
      const file = join(d, "config.json");
      writeFileSync(file, `{ "daemon": { "socketPath": "${join(d, "cfg", "c.sock")}" } }`);
      return { HOME: join(d, "h"), CORTEXD_CONFIG: file, CORTEXD_SOCKET: ` ${join(d, "env", "e.sock")}` };
    },
  },
];

/** A `node` that only says it was asked: bin/cortexd handed the hook to Node. */
const fakeNode = join(root, "fake-node");
writeFileSync(fakeNode, "#!/bin/sh\necho DEFERRED-TO-NODE\n", { mode: 0o755 });

function launcher(env: NodeJS.ProcessEnv): string {
  const r = spawnSync(LAUNCHER, ["hook", "pre-turn"], {
    env: { PATH: process.env.PATH, ...env, CORTEXD_NODE: fakeNode },
    input: '{"prompt":"hello"}',
    encoding: "utf8",
    timeout: 20_000,
  });
  expect(r.status).toBe(0);
  return r.stdout.trim();
}

function listen(path: string): Promise<Server> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  return new Promise((resolve, reject) => {
    const server = createServer((c) => c.destroy());
    server.once("error", reject);
    server.listen(path, () => resolve(server));
  });
}

describe("the socket path: daemon = CLI and hooks = bin/cortexd = OpenClaw", () => {
  let n = 0;
  for (const c of cases) {
    it(c.name, async () => {
      const dir = join(root, String(n++));
      mkdirSync(dir);
      const env = c.setup(dir);
      mkdirSync(env.HOME!, { recursive: true });
      const daemon = c.platform
        ? resolveSocketPath({ env, platform: c.platform, uid })
        : socketPathFor(loadConfig({ env }), env);
      if (!c.platform) expect(clientSocketPath(env)).toBe(daemon);
      if (c.openclaw !== false) {
        expect(defaultSocketPath(env, { ...(c.platform ? { platform: c.platform } : {}), uid })).toBe(daemon);
      }
      // No daemon: the shell answers alone (no Node); the daemon listening: it hands over to Node.
      expect(launcher(env)).toBe(
        c.shellDefers ? "DEFERRED-TO-NODE" : '{"context":"","memory_count":0,"tokens_used":0}',
      );
      const server = await listen(daemon);
      try {
        expect(launcher(env)).toBe("DEFERRED-TO-NODE");
      } finally {
        server.close();
      }
    });
  }
});
