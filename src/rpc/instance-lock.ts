import { randomUUID } from "node:crypto";
import { closeSync, lstatSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Logger } from "pino";
import { socketLiveness } from "./connect.js";

/**
 * Single-instance guard for one socket path: `<dir>/cortexd.lock` (for `cortexd.sock`) created with
 * O_EXCL, holding pid, start time and a random token.
 *
 * An existing lock means "running" when its pid is alive and the socket accepts connections; "starting"
 * when the pid is alive, the socket is not up yet and the lock is younger than startupGraceMs (we wait);
 * otherwise it is stale and taken over. Only the holder of a short-lived `<lock>.takeover` mutex may
 * delete someone else's lock, and only if its content is unchanged since it was judged stale — so when
 * several daemons start at once, exactly one creates the lock.
 *
 * Order at shutdown: close the RPC server, then release() the lock.
 */

export class AlreadyRunningError extends Error {
  constructor(
    readonly pid: number | undefined,
    readonly socketPath: string,
  ) {
    super(
      pid !== undefined
        ? `cortexd is already running (pid ${pid}) on ${socketPath}; use \`cortexd stop\` first`
        : `cortexd is already running on ${socketPath}; use \`cortexd stop\` first`,
    );
    this.name = "AlreadyRunningError";
  }
}

export interface LockInfo {
  pid: number;
  /** ms since epoch. */
  startedAt: number;
  token: string;
  socketPath: string;
}

export interface InstanceLock {
  readonly lockPath: string;
  readonly socketPath: string;
  readonly info: LockInfo;
  /** Removes the socket file and the lock, if the lock is still ours. Idempotent, synchronous (safe in exit handlers). */
  release(): void;
}

export interface AcquireLockOptions {
  logger?: Logger;
  /** How long a live pid without a listening socket counts as "still starting". Default 10 s. */
  startupGraceMs?: number;
  /** Connect timeout when probing the socket. Default 1 s. */
  probeTimeoutMs?: number;
  /**
   * Lock this file instead of the one beside the socket: the data dir's `lock`, so two daemons with
   * different sockets cannot share one data dir. The holder's liveness is judged by the socket its
   * lock names; taking it leaves the socket alone (the socket's own lock does that).
   */
  lockPath?: string;
}

/** Locks held by this process (lockPath → token). */
const held = new Map<string, string>();
const MUTEX_STALE_MS = 2000;
const POLL_MS = 50;

export function lockPathFor(socketPath: string): string {
  return join(dirname(socketPath), `${basename(socketPath).replace(/\.sock$/, "")}.lock`);
}

/** Acquires the instance lock for socketPath (its directory must exist), clearing a stale lock and socket. */
export async function acquireInstanceLock(socketPath: string, opts: AcquireLockOptions = {}): Promise<InstanceLock> {
  const logger = opts.logger;
  const grace = opts.startupGraceMs ?? 10_000;
  const probeTimeout = opts.probeTimeoutMs ?? 1000;
  const lockPath = opts.lockPath ?? lockPathFor(socketPath);
  const ownsSocket = opts.lockPath === undefined;
  const deadline = Date.now() + grace + 5000;

  for (;;) {
    if (held.has(lockPath)) throw new AlreadyRunningError(process.pid, socketPath);
    const info: LockInfo = { pid: process.pid, startedAt: Date.now(), token: randomUUID(), socketPath };
    if (tryCreate(lockPath, JSON.stringify(info) + "\n")) {
      held.set(lockPath, info.token);
      try {
        if (ownsSocket) await clearStaleSocket(socketPath, probeTimeout, logger);
      } catch (err) {
        // Give the lock back, but leave the socket: it may be a live daemon's.
        held.delete(lockPath);
        unlinkQuiet(lockPath);
        throw err;
      }
      return makeLock(lockPath, socketPath, info, logger, ownsSocket);
    }
    if (Date.now() > deadline) throw new Error(`could not acquire the instance lock ${lockPath} (it keeps changing)`);

    const cur = readLock(lockPath);
    if (!cur) continue; // vanished: retry right away
    const holderSocket = cur.info?.socketPath || socketPath;
    const verdict = await judge(cur, lockPath, holderSocket, grace, probeTimeout);
    if (verdict === "running") throw new AlreadyRunningError(cur.info?.pid, holderSocket);
    if (verdict === "starting") {
      await sleep(POLL_MS);
      continue;
    }
    const removed = removeIfUnchanged(lockPath, cur.raw);
    if (removed === "busy") await sleep(POLL_MS / 5);
    else if (removed === "removed")
      logger?.warn({ lockPath, pid: cur.info?.pid }, "removed stale cortexd instance lock");
  }
}

function makeLock(
  lockPath: string,
  socketPath: string,
  info: LockInfo,
  logger: Logger | undefined,
  ownsSocket: boolean,
): InstanceLock {
  let released = false;
  return {
    lockPath,
    socketPath,
    info,
    release() {
      if (released) return;
      released = true;
      held.delete(lockPath);
      const cur = readLock(lockPath);
      if (!cur || cur.info?.token !== info.token) {
        logger?.warn({ lockPath }, "instance lock is no longer ours; leaving it and the socket alone");
        return;
      }
      // While we hold the lock nobody else may create the socket, so a socket file here is ours.
      if (ownsSocket) unlinkQuiet(socketPath);
      unlinkQuiet(lockPath);
    },
  };
}

type Verdict = "running" | "starting" | "stale";

async function judge(
  cur: ReadLock,
  lockPath: string,
  socketPath: string,
  grace: number,
  probeTimeout: number,
): Promise<Verdict> {
  const age = Date.now() - (cur.info?.startedAt ?? cur.mtimeMs);
  const young = age >= 0 && age < grace;
  if (!cur.info) return Date.now() - cur.mtimeMs < MUTEX_STALE_MS ? "starting" : "stale"; // being written, or garbage
  const { pid } = cur.info;
  if (pid === process.pid) return held.has(lockPath) ? "running" : "stale"; // e.g. pid 1 in a restarted container
  if (!pidAlive(pid)) return "stale";
  const live = await socketLiveness(socketPath, probeTimeout);
  if (live.state !== "dead") return "running"; // up, or busy/unreachable: don't steal it
  return young ? "starting" : "stale";
}

/** After taking the lock: a socket file left behind by a crashed daemon is removed; a live one is refused. */
async function clearStaleSocket(socketPath: string, probeTimeout: number, logger: Logger | undefined): Promise<void> {
  let st;
  try {
    st = lstatSync(socketPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  if (!st.isSocket() && !st.isFile())
    throw new Error(`${socketPath} exists and is not a socket; remove it or set CORTEXD_SOCKET`);
  const live = await socketLiveness(socketPath, probeTimeout);
  if (live.state === "up") throw new AlreadyRunningError(undefined, socketPath);
  if (live.state === "unknown") {
    throw new Error(
      `cannot tell whether ${socketPath} is in use (${live.code ?? "no answer"}); remove it if no cortexd is running`,
    );
  }
  unlinkQuiet(socketPath);
  logger?.warn({ socketPath }, "removed stale cortexd socket");
}

interface ReadLock {
  raw: string;
  info?: LockInfo;
  mtimeMs: number;
}

function readLock(lockPath: string): ReadLock | null {
  try {
    const mtimeMs = statSync(lockPath).mtimeMs;
    const raw = readFileSync(lockPath, "utf8");
    const info = parseInfo(raw);
    return info ? { raw, info, mtimeMs } : { raw, mtimeMs };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

function parseInfo(raw: string): LockInfo | undefined {
  try {
    const v = JSON.parse(raw) as Partial<LockInfo>;
    if (
      Number.isSafeInteger(v.pid) &&
      (v.pid as number) > 0 &&
      typeof v.startedAt === "number" &&
      typeof v.token === "string"
    ) {
      return v as LockInfo;
    }
  } catch {
    // fallthrough
  }
  return undefined;
}

function tryCreate(path: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  try {
    writeSync(fd, content);
  } catch (err) {
    unlinkQuiet(path);
    throw err;
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Deletes the lock iff it still holds `raw`, under the takeover mutex. Exported for tests. */
export function removeIfUnchanged(lockPath: string, raw: string): "removed" | "changed" | "busy" {
  const mutex = `${lockPath}.takeover`;
  if (!tryCreate(mutex, String(process.pid))) {
    try {
      if (Date.now() - statSync(mutex).mtimeMs > MUTEX_STALE_MS) unlinkQuiet(mutex); // its holder died mid-takeover
    } catch {
      // gone already
    }
    return "busy";
  }
  try {
    const cur = readLock(lockPath);
    if (!cur || cur.raw !== raw) return "changed";
    unlinkSync(lockPath);
    return "removed";
  } finally {
    unlinkQuiet(mutex);
  }
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
