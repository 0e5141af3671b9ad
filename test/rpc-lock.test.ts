import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import ts from "typescript";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { withClient } from "../src/client/client.js";
import { AlreadyRunningError, acquireInstanceLock, lockPathFor, type InstanceLock } from "../src/rpc/instance-lock.js";
import { removeIfUnchanged } from "../src/util/lock-file.js";
import { startRpcServer } from "../src/rpc/server.js";
import { SocketPathTooLongError, prepareSocketDir, resolveSocketPath } from "../src/rpc/socket-path.js";

const dirs: string[] = [];
const children: ChildProcess[] = [];
const locks: InstanceLock[] = [];
afterEach(() => {
  for (const l of locks.splice(0)) l.release();
  for (const c of children.splice(0)) c.kill("SIGKILL");
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "cxlock-"));
  dirs.push(d);
  return d;
}
function tempSocket(): string {
  const sock = join(tempDir(), "run", "cortexd.sock");
  prepareSocketDir(sock);
  return sock;
}
async function acquire(sock: string, opts?: Parameters<typeof acquireInstanceLock>[1]): Promise<InstanceLock> {
  const l = await acquireInstanceLock(sock, opts);
  locks.push(l);
  return l;
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "0"]);
  return r.pid!;
}

/** A live child process; with `listen`, it serves a (silent) Unix socket at that path. */
async function liveChild(listen?: string, delayMs = 0): Promise<ChildProcess> {
  const code = listen
    ? `setTimeout(() => require('net').createServer().listen(process.argv[1], () => console.log('ready')), ${delayMs}); setInterval(() => {}, 1e6)`
    : "console.log('ready'); setInterval(() => {}, 1e6)";
  const child = spawn(process.execPath, ["-e", code, listen ?? ""], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  if (delayMs === 0) await new Promise<void>((r) => child.stdout!.once("data", () => r()));
  return child;
}

function writeLock(sock: string, pid: number, startedAt = Date.now() - 60_000): void {
  writeFileSync(lockPathFor(sock), JSON.stringify({ pid, startedAt, token: "t-" + pid, socketPath: sock }));
}

describe("resolveSocketPath", () => {
  it("prefers $CORTEXD_SOCKET", () => {
    expect(
      resolveSocketPath({
        env: { CORTEXD_SOCKET: "/tmp/x/c.sock", XDG_RUNTIME_DIR: "/run/user/1" },
        platform: "linux",
      }),
    ).toBe("/tmp/x/c.sock");
    expect(resolveSocketPath({ env: { CORTEXD_SOCKET: "~/c.sock", HOME: "/home/u" }, platform: "darwin" })).toBe(
      "/home/u/c.sock",
    );
  });
  it("Linux: $XDG_RUNTIME_DIR, else <dataDir>/run", () => {
    expect(resolveSocketPath({ env: { XDG_RUNTIME_DIR: "/run/user/1000" }, platform: "linux" })).toBe(
      "/run/user/1000/cortexd/cortexd.sock",
    );
    expect(resolveSocketPath({ env: { HOME: "/home/u" }, platform: "linux", dataDir: "/data/cx" })).toBe(
      "/data/cx/run/cortexd.sock",
    );
    expect(resolveSocketPath({ env: { HOME: "/home/u" }, platform: "linux" })).toBe(
      "/home/u/.local/share/cortexd/run/cortexd.sock",
    );
  });
  it("macOS: Application Support, else a per-user $TMPDIR dir", () => {
    expect(resolveSocketPath({ env: { HOME: "/Users/u" }, platform: "darwin" })).toBe(
      "/Users/u/Library/Application Support/cortexd/run/cortexd.sock",
    );
    const longHome = "/Users/" + "u".repeat(60);
    expect(
      resolveSocketPath({ env: { HOME: longHome, TMPDIR: "/var/folders/ab/xyz/T/" }, platform: "darwin", uid: 501 }),
    ).toBe("/var/folders/ab/xyz/T/cortexd-501/cortexd.sock");
  });
  it("too long for sun_path → a clear error naming the path and CORTEXD_SOCKET", () => {
    const long = "/" + "d".repeat(120);
    expect(() => resolveSocketPath({ env: { XDG_RUNTIME_DIR: long, HOME: long }, platform: "linux" })).toThrow(
      SocketPathTooLongError,
    );
    expect(() => resolveSocketPath({ env: { CORTEXD_SOCKET: long + "/c.sock" }, platform: "linux" })).toThrow(
      /CORTEXD_SOCKET/,
    );
    try {
      resolveSocketPath({ env: { XDG_RUNTIME_DIR: long, HOME: long }, platform: "linux" });
    } catch (e) {
      expect((e as Error).message).toContain(long);
    }
    // 104-byte macOS limit vs 108 on Linux
    const p100 = "/" + "x".repeat(94) + "/s.sock"; // 102 bytes
    expect(resolveSocketPath({ env: { CORTEXD_SOCKET: p100 }, platform: "darwin" })).toBe(p100);
    const p105 = "/" + "x".repeat(97) + "/s.sock";
    expect(() => resolveSocketPath({ env: { CORTEXD_SOCKET: p105 }, platform: "darwin" })).toThrow(
      SocketPathTooLongError,
    );
    expect(resolveSocketPath({ env: { CORTEXD_SOCKET: p105 }, platform: "linux" })).toBe(p105);
  });
});

describe("prepareSocketDir", () => {
  it("creates the directory 0700 and tightens a loose one", () => {
    const base = tempDir();
    const sock = join(base, "a", "b", "cortexd.sock");
    expect(prepareSocketDir(sock)).toEqual({ dir: join(base, "a", "b"), created: true });
    expect(statSync(join(base, "a", "b")).mode & 0o777).toBe(0o700);
    chmodSync(join(base, "a", "b"), 0o755);
    expect(prepareSocketDir(sock).fixedMode).toBe(0o755);
    expect(statSync(join(base, "a", "b")).mode & 0o777).toBe(0o700);
  });
  it("refuses a non-directory, the home directory, and someone else's directory", () => {
    const base = tempDir();
    writeFileSync(join(base, "f"), "");
    expect(() => prepareSocketDir(join(base, "f", "c.sock"))).toThrow(/not a directory|ENOTDIR/);
    const home = join(base, "home");
    mkdirSync(home, { mode: 0o755 });
    chmodSync(home, 0o755);
    expect(() => prepareSocketDir(join(home, "c.sock"), { HOME: home })).toThrow(/home directory.*CORTEXD_SOCKET/);
    if (process.getuid?.() === 0) {
      const other = join(base, "other");
      mkdirSync(other, { mode: 0o755 });
      chownSync(other, 4242, 4242);
      expect(() => prepareSocketDir(join(other, "c.sock"))).toThrow(/owned by uid 4242/);
    }
  });
});

describe("instance lock", () => {
  it("a second acquire throws AlreadyRunningError while the first holds it; release frees it", async () => {
    const sock = tempSocket();
    const lock = await acquire(sock);
    const info = JSON.parse(readFileSync(lockPathFor(sock), "utf8"));
    expect(info.pid).toBe(process.pid);
    expect(typeof info.startedAt).toBe("number");
    const err = await acquireInstanceLock(sock).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AlreadyRunningError);
    expect((err as Error).message).toBe(
      `cortexd is already running (pid ${process.pid}) on ${sock}; use \`cortexd stop\` first`,
    );
    const server = await startRpcServer({ socketPath: sock, handlers: {} });
    await server.close();
    lock.release();
    expect(existsSync(lockPathFor(sock))).toBe(false);
    const again = await acquire(sock);
    expect(again.info.pid).toBe(process.pid);
  });

  it("another live process whose socket answers → AlreadyRunningError naming its pid", async () => {
    const sock = tempSocket();
    const child = await liveChild(sock);
    writeLock(sock, child.pid!);
    const err = await acquireInstanceLock(sock).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AlreadyRunningError);
    expect((err as AlreadyRunningError).pid).toBe(child.pid);
    expect((err as Error).message).toContain(`(pid ${child.pid})`);
  });

  it("a live socket without a lock → AlreadyRunningError, and the socket is left alone", async () => {
    const sock = tempSocket();
    await liveChild(sock);
    const err = await acquireInstanceLock(sock).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AlreadyRunningError);
    expect((err as AlreadyRunningError).pid).toBeUndefined();
    expect(statSync(sock).isSocket()).toBe(true);
    expect(existsSync(lockPathFor(sock))).toBe(false);
  });

  it("a dead pid's lock and its SIGKILLed server's socket are taken over", async () => {
    const sock = tempSocket();
    const child = await liveChild(sock);
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    expect(statSync(sock).isSocket()).toBe(true);
    writeLock(sock, deadPid());
    const warnings: string[] = [];
    const logger = { warn: (_o: unknown, msg: string) => warnings.push(msg) } as never;
    const lock = await acquire(sock, { logger });
    expect(JSON.parse(readFileSync(lockPathFor(sock), "utf8")).token).toBe(lock.info.token);
    expect(existsSync(sock)).toBe(false);
    expect(warnings).toEqual(["removed stale cortexd instance lock", "removed stale cortexd socket"]);
    const server = await startRpcServer({
      socketPath: sock,
      handlers: { "daemon.ping": () => ({ pong: true, version: "t", pid: 1, uptimeMs: 0 }) },
    });
    expect((await withClient(sock, (c) => c.call("daemon.ping"))).pong).toBe(true);
    await server.close();
  });

  it("a regular file at the socket path, and a lock of garbage, are taken over", async () => {
    const sock = tempSocket();
    writeFileSync(sock, "not a socket");
    writeFileSync(lockPathFor(sock), "garbage");
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockPathFor(sock), old, old);
    await acquire(sock);
    expect(existsSync(sock)).toBe(false);
  });

  it("a live pid without a socket: waits while young (then sees it come up), takes over once old", async () => {
    const sock = tempSocket();
    // Young lock, the "daemon" starts listening 200 ms later → AlreadyRunning.
    const starting = await liveChild(sock, 200);
    writeLock(sock, starting.pid!, Date.now());
    const t0 = Date.now();
    const err = await acquireInstanceLock(sock, { startupGraceMs: 3000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AlreadyRunningError);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(150);
    starting.kill("SIGKILL");
    await new Promise((r) => starting.once("exit", r));

    // A live pid (pid reuse, or a hung daemon) with no socket and an old lock → stale.
    const sock2 = tempSocket();
    const other = await liveChild();
    writeLock(sock2, other.pid!, Date.now() - 60_000);
    const lock = await acquire(sock2);
    expect(lock.info.pid).toBe(process.pid);
  });

  it("release leaves a lock that is no longer ours alone", async () => {
    const sock = tempSocket();
    const lock = await acquireInstanceLock(sock);
    writeLock(sock, 12345); // someone took it over
    lock.release();
    expect(JSON.parse(readFileSync(lockPathFor(sock), "utf8")).pid).toBe(12345);
  });

  it("a stale lock is only deleted if unchanged since judged, and only under the takeover mutex", () => {
    const sock = tempSocket();
    const lockPath = lockPathFor(sock);
    writeLock(sock, 111);
    const judged = readFileSync(lockPath, "utf8");
    writeLock(sock, 222); // a faster contender replaced it meanwhile
    expect(removeIfUnchanged(lockPath, judged)).toBe("changed");
    expect(JSON.parse(readFileSync(lockPath, "utf8")).pid).toBe(222);
    writeFileSync(lockPath + ".takeover", "999"); // someone else is taking over right now
    expect(removeIfUnchanged(lockPath, readFileSync(lockPath, "utf8"))).toBe("busy");
    expect(existsSync(lockPath)).toBe(true);
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockPath + ".takeover", old, old); // ...and died doing so: its mutex expires
    expect(removeIfUnchanged(lockPath, readFileSync(lockPath, "utf8"))).toBe("busy");
    expect(removeIfUnchanged(lockPath, readFileSync(lockPath, "utf8"))).toBe("removed");
    expect(existsSync(lockPath)).toBe(false);
    expect(existsSync(lockPath + ".takeover")).toBe(false);
  });

  it("concurrent acquires in one process over a stale lock: exactly one wins", async () => {
    const sock = tempSocket();
    writeLock(sock, deadPid());
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => acquireInstanceLock(sock)));
    const won = results.filter((r) => r.status === "fulfilled");
    expect(won).toHaveLength(1);
    locks.push((won[0] as PromiseFulfilledResult<InstanceLock>).value);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(AlreadyRunningError);
  });

  it("daemons racing in separate processes over a stale lock: exactly one wins", async () => {
    const sock = tempSocket();
    writeLock(sock, deadPid());
    const modDir = transpileLockModules();
    const startAt = Date.now() + 400;
    const script = `
      const { acquireInstanceLock } = await import(${JSON.stringify(join(modDir, "instance-lock.js"))});
      const sock = process.argv[1];
      while (Date.now() < ${startAt}) {}
      try {
        await acquireInstanceLock(sock, { startupGraceMs: 5000 });
        const net = await import("node:net");
        net.createServer().listen(sock, () => console.log("won"));
        setInterval(() => {}, 1e6);
      } catch (e) { console.log("lost:" + e.name); process.exit(0); }`;
    const racers = Array.from({ length: 6 }, () => {
      const c = spawn(process.execPath, ["--input-type=module", "-e", script, sock], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      children.push(c);
      return new Promise<string>((r) => c.stdout!.once("data", (d: Buffer) => r(d.toString().trim())));
    });
    const outcomes = await Promise.all(racers);
    expect(outcomes.filter((o) => o === "won")).toHaveLength(1);
    expect(outcomes.filter((o) => o === "lost:AlreadyRunningError")).toHaveLength(5);
  });
});

/** instance-lock.ts and what it imports as plain ESM in a temp dir, so child processes can run the real code. */
function transpileLockModules(): string {
  const out = tempDir();
  writeFileSync(join(out, "package.json"), '{"type":"module"}');
  for (const name of ["rpc/instance-lock", "rpc/connect", "util/lock-file"]) {
    const src = readFileSync(new URL(`../src/${name}.ts`, import.meta.url), "utf8");
    const js = ts.transpileModule(src, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    mkdirSync(join(out, dirname(name)), { recursive: true });
    writeFileSync(join(out, `${name}.js`), js);
  }
  return join(out, "rpc");
}
