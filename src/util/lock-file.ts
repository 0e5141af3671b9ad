/**
 * One lock file, for every lock cortexd takes (the daemon's socket and data dir, the built-in
 * model's build): created with O_EXCL and owner-only, holding JSON `{pid, host, startedAt, token, …}`.
 *
 * A contender reads the lock and lets its caller judge it ("held", "wait", "stale"; holderAlive()
 * is the judgement by pid). A stale lock is deleted only under a short-lived `<lock>.takeover`
 * mutex and only if its content is unchanged since it was judged, so when several processes find
 * the same stale lock, exactly one of them takes it. release() deletes the lock only while it is
 * still ours.
 */
import { randomUUID } from "node:crypto";
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import os from "node:os";

export interface LockRecord {
  pid: number;
  /** The holder's host name (a pid means nothing on another host). Absent in older locks. */
  host?: string;
  /** ms since epoch. */
  startedAt?: number;
  /** Random, per take: tells our lock from a later one at the same path. */
  token?: string;
}

/** A lock as read from disk: its bytes, the record they hold (absent while written, or garbage), its mtime. */
export interface ReadLock<T extends object = object> {
  raw: string;
  record?: LockRecord & Partial<T>;
  mtimeMs: number;
}

export interface HeldLock<T extends object = object> {
  readonly path: string;
  readonly record: Required<LockRecord> & T;
  /** Whether the file at `path` is still this lock (nobody took it over). */
  stillOurs(): boolean;
  /** Deletes the lock if it is still ours; false when it is not (it is then left alone). Idempotent, synchronous. */
  release(): boolean;
}

/** What a contender makes of someone else's lock: theirs and in use, theirs soon (retry), or abandoned. */
export type Verdict = "held" | "wait" | "stale";

export interface TakeOptions<T extends object> {
  judge: (cur: ReadLock<T>) => Verdict | Promise<Verdict>;
  /** ms since epoch after which a lock still not taken (waiting, or changing under us) throws `timeout()`. */
  deadline: number;
  /** Pause between looks at a lock judged "wait". */
  pollMs: number;
  timeout: () => Error;
  /** Told when a stale lock was deleted (to log it). */
  onStale?: (cur: ReadLock<T>) => void;
}

/** Locks held by this process (path → token). */
const held = new Map<string, string>();
/** A takeover mutex older than this belongs to a contender that died mid-takeover. */
const MUTEX_STALE_MS = 2000;

/** Whether this process holds the lock at `path`. */
export function heldHere(path: string): boolean {
  return held.has(path);
}

/**
 * Takes the lock at `path` (its directory must exist), waiting while the judge says "wait" and
 * taking over a lock it calls "stale". Returns the lock, or the holder's lock when judged "held".
 */
export async function takeLock<T extends object>(
  path: string,
  extra: T,
  opts: TakeOptions<T>,
): Promise<{ taken: HeldLock<T> } | { holder: ReadLock<T> }> {
  for (;;) {
    const taken = tryTakeLock(path, extra);
    if (taken) return { taken };
    if (Date.now() > opts.deadline) throw opts.timeout();
    const cur = readLock<T>(path);
    if (!cur) continue; // vanished: retry right away
    const verdict = await opts.judge(cur);
    if (verdict === "held") return { holder: cur };
    if (verdict === "wait") {
      await sleep(opts.pollMs);
      continue;
    }
    const removed = removeIfUnchanged(path, cur.raw);
    if (removed === "busy") await sleep(Math.min(10, opts.pollMs));
    else if (removed === "removed") opts.onStale?.(cur);
  }
}

/** Creates the lock at `path` if there is none (O_EXCL, 0600); null when one exists. */
export function tryTakeLock<T extends object>(path: string, extra: T): HeldLock<T> | null {
  const record = {
    ...extra,
    pid: process.pid,
    host: os.hostname(),
    startedAt: Date.now(),
    token: randomUUID(),
  } as Required<LockRecord> & T;
  if (!tryCreate(path, JSON.stringify(record) + "\n")) return null;
  held.set(path, record.token);
  let released = false;
  const stillOurs = () => readLock(path)?.record?.token === record.token;
  return {
    path,
    record,
    stillOurs,
    release() {
      if (released) return true;
      released = true;
      held.delete(path);
      if (!stillOurs()) return false;
      unlinkQuiet(path);
      return true;
    },
  };
}

/** The lock at `path`, or null when there is none. */
export function readLock<T extends object = object>(path: string): ReadLock<T> | null {
  try {
    const mtimeMs = statSync(path).mtimeMs;
    const raw = readFileSync(path, "utf8");
    const record = parseRecord<T>(raw);
    return record ? { raw, record, mtimeMs } : { raw, mtimeMs };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

/**
 * Whether the process a lock names is alive, judged by its pid: a lock naming this process is
 * alive only while this process holds it (a pid reused after a restart, e.g. pid 1 in a
 * container); one from another host cannot be checked from here and counts as alive.
 */
export function holderAlive(record: LockRecord, path: string): boolean {
  if (record.host !== undefined && record.host !== os.hostname()) return true;
  if (record.pid === process.pid) return held.has(path);
  return pidAlive(record.pid);
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Deletes the lock iff it still holds `raw`, under the takeover mutex. */
export function removeIfUnchanged(path: string, raw: string): "removed" | "changed" | "busy" {
  const mutex = `${path}.takeover`;
  if (!tryCreate(mutex, String(process.pid))) {
    try {
      if (Date.now() - statSync(mutex).mtimeMs > MUTEX_STALE_MS) unlinkQuiet(mutex); // its holder died mid-takeover
    } catch {
      // gone already
    }
    return "busy";
  }
  try {
    const cur = readLock(path);
    if (!cur || cur.raw !== raw) return "changed";
    unlinkSync(path);
    return "removed";
  } finally {
    unlinkQuiet(mutex);
  }
}

export function unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

function parseRecord<T extends object>(raw: string): (LockRecord & Partial<T>) | undefined {
  try {
    const v = JSON.parse(raw) as unknown;
    if (typeof v !== "object" || v === null) return undefined;
    const pid = (v as { pid?: unknown }).pid;
    if (typeof pid === "number" && Number.isSafeInteger(pid) && pid > 0) return v as LockRecord & Partial<T>;
  } catch {
    // being written, or garbage
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

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
