import { lstatSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Logger } from "pino";
import {
  heldHere,
  holderAlive,
  takeLock,
  unlinkQuiet,
  type HeldLock,
  type LockRecord,
  type ReadLock,
  type Verdict,
} from "../util/lock-file.js";
import { socketLiveness } from "./connect.js";

/**
 * Single-instance guard for one socket path: `<dir>/cortexd.lock` (for `cortexd.sock`), a lock file
 * (util/lock-file.ts) that also names the socket.
 *
 * An existing lock means "running" when its pid is alive and the socket accepts connections; "starting"
 * when the pid is alive, the socket is not up yet and the lock is younger than startupGraceMs (we wait);
 * otherwise it is stale and taken over (under lock-file's takeover mutex, so when several daemons
 * start at once, exactly one creates the lock).
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

export type LockInfo = Required<LockRecord> & { socketPath: string };

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

const POLL_MS = 50;
/** A lock without a valid record younger than this is still being written. */
const WRITING_MS = 2000;

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
  if (heldHere(lockPath)) throw new AlreadyRunningError(process.pid, socketPath);
  let holderSocket = socketPath;
  const got = await takeLock<{ socketPath: string }>(
    lockPath,
    { socketPath },
    {
      judge: (cur) => {
        holderSocket = cur.record?.socketPath || socketPath;
        return judge(cur, lockPath, holderSocket, grace, probeTimeout);
      },
      deadline: Date.now() + grace + 5000,
      pollMs: POLL_MS,
      timeout: () => new Error(`could not acquire the instance lock ${lockPath} (it keeps changing)`),
      onStale: (cur) => logger?.warn({ lockPath, pid: cur.record?.pid }, "removed stale cortexd instance lock"),
    },
  );
  if ("holder" in got) throw new AlreadyRunningError(got.holder.record?.pid, holderSocket);
  const fileLock = got.taken;
  try {
    if (ownsSocket) await clearStaleSocket(socketPath, probeTimeout, logger);
  } catch (err) {
    // Give the lock back, but leave the socket: it may be a live daemon's.
    fileLock.release();
    throw err;
  }
  return makeLock(fileLock, socketPath, logger, ownsSocket);
}

function makeLock(
  fileLock: HeldLock<{ socketPath: string }>,
  socketPath: string,
  logger: Logger | undefined,
  ownsSocket: boolean,
): InstanceLock {
  let released = false;
  return {
    lockPath: fileLock.path,
    socketPath,
    info: fileLock.record,
    release() {
      if (released) return;
      released = true;
      if (!fileLock.stillOurs()) {
        fileLock.release();
        logger?.warn({ lockPath: fileLock.path }, "instance lock is no longer ours; leaving it and the socket alone");
        return;
      }
      // While we hold the lock nobody else may create the socket, so a socket file here is ours.
      if (ownsSocket) unlinkQuiet(socketPath);
      fileLock.release();
    },
  };
}

/**
 * Running: the holder's pid is alive and its socket is up (or busy). Starting (wait): alive, no
 * socket yet, and younger than the grace. A lock being written (no record yet) waits briefly.
 */
async function judge(
  cur: ReadLock<{ socketPath: string }>,
  lockPath: string,
  socketPath: string,
  grace: number,
  probeTimeout: number,
): Promise<Verdict> {
  const rec = cur.record;
  const valid = rec && typeof rec.startedAt === "number" && typeof rec.token === "string";
  if (!rec || !valid) return Date.now() - cur.mtimeMs < WRITING_MS ? "wait" : "stale"; // being written, or garbage
  const age = Date.now() - (rec.startedAt ?? cur.mtimeMs);
  const young = age >= 0 && age < grace;
  if (!holderAlive(rec, lockPath)) return "stale";
  if (rec.pid === process.pid) return "held"; // this process holds it
  const live = await socketLiveness(socketPath, probeTimeout);
  if (live.state !== "dead") return "held"; // up, or busy/unreachable: don't steal it
  return young ? "wait" : "stale";
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
