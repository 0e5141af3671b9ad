/**
 * ensureBuiltinModel: the built-in model's path, built on first use.
 *
 * Safe with several processes (daemon + CLI) starting at once: the builder takes an
 * exclusive lock file (<model>.lock, O_EXCL) and the GGUF writer writes a temp file and
 * renames it, so a reader never sees a partial model. Others wait for the lock to go away;
 * a lock whose process is dead (same host) or older than 15 minutes is taken over.
 * A model written by an older builder version (cortexd.builder.version) is rebuilt.
 */
import { mkdir, open, readFile, stat, unlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { readGgufInfo, ggufValue } from "../gguf/reader.js";
import {
  BUILTIN_BUILDER_VERSION,
  BUILTIN_MODEL_FILE,
  BUILTIN_MODEL_NAME,
  BUILTIN_VERSION_KEY,
  buildBuiltinModel,
  type BuildOptions,
  type BuildProgress,
} from "./build.js";

export interface EnsureOptions {
  onProgress?: (p: BuildProgress) => void;
  /** Passed to buildBuiltinModel (vocabSize, source). */
  build?: Omit<BuildOptions, "onProgress">;
  /** Give up waiting for another process's build after this long (default 15 min). */
  waitTimeoutMs?: number;
}

const STALE_LOCK_MS = 15 * 60_000;
const POLL_MS = 200;

/** In-process dedupe: concurrent calls for the same path share one build. */
const inFlight = new Map<string, Promise<string>>();

/** Path of the built-in model inside `modelsDir`. */
export function builtinModelPath(modelsDir: string): string {
  return path.join(path.resolve(modelsDir), BUILTIN_MODEL_FILE);
}

/** True when `file` is a complete model from the current builder version. */
export async function isCurrentBuiltinModel(file: string): Promise<boolean> {
  try {
    const info = await readGgufInfo(file);
    return (
      ggufValue(info, BUILTIN_VERSION_KEY) === BUILTIN_BUILDER_VERSION &&
      ggufValue(info, "general.name") === BUILTIN_MODEL_NAME
    );
  } catch {
    return false; // missing, truncated or not a GGUF
  }
}

/** Returns the built-in model's path, building it (once) if it is missing or outdated. */
export function ensureBuiltinModel(modelsDir: string, opts: EnsureOptions = {}): Promise<string> {
  const target = builtinModelPath(modelsDir);
  let p = inFlight.get(target);
  if (!p) {
    p = ensure(target, opts).finally(() => inFlight.delete(target));
    inFlight.set(target, p);
  }
  return p;
}

async function ensure(target: string, opts: EnsureOptions): Promise<string> {
  if (await isCurrentBuiltinModel(target)) return target;
  const lockPath = `${target}.lock`;
  const deadline = Date.now() + (opts.waitTimeoutMs ?? STALE_LOCK_MS);
  for (;;) {
    const release = await tryLock(lockPath);
    if (release) {
      try {
        // Another process may have finished between our check and taking the lock.
        if (await isCurrentBuiltinModel(target)) return target;
        await buildBuiltinModel(target, { ...opts.build, ...(opts.onProgress ? { onProgress: opts.onProgress } : {}) });
        return target;
      } finally {
        await release();
      }
    }
    // Someone else is building: wait for their lock to go away, then re-check.
    while (await lockIsLive(lockPath)) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for another process to build ${target} (lock ${lockPath})`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    if (await isCurrentBuiltinModel(target)) return target;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${target}`);
  }
}

interface LockInfo {
  pid: number;
  host: string;
  at: number;
}

async function tryLock(lockPath: string): Promise<(() => Promise<void>) | null> {
  try {
    await openExclusive(lockPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    if (await lockIsLive(lockPath)) return null;
    await unlink(lockPath).catch(() => undefined); // stale: take it over (a racing taker loses at O_EXCL)
    try {
      await openExclusive(lockPath);
    } catch (err2) {
      if ((err2 as NodeJS.ErrnoException).code === "EEXIST") return null;
      throw err2;
    }
  }
  return async () => {
    await unlink(lockPath).catch(() => undefined);
  };
}

async function openExclusive(lockPath: string): Promise<void> {
  // Owner-only from the start (the daemon's private-data check would otherwise tighten them later).
  await mkdir(path.dirname(lockPath), { recursive: true, mode: 0o700 });
  const fh = await open(lockPath, "wx", 0o600);
  try {
    const info: LockInfo = { pid: process.pid, host: os.hostname(), at: Date.now() };
    await fh.writeFile(JSON.stringify(info));
  } finally {
    await fh.close();
  }
}

/** The lock exists and its holder is (probably) alive. */
async function lockIsLive(lockPath: string): Promise<boolean> {
  let mtime: number;
  try {
    mtime = (await stat(lockPath)).mtimeMs;
  } catch {
    return false;
  }
  if (Date.now() - mtime > STALE_LOCK_MS) return false;
  let info: Partial<LockInfo>;
  try {
    info = JSON.parse(await readFile(lockPath, "utf8")) as Partial<LockInfo>;
  } catch {
    return true; // being written right now
  }
  if (info.host === os.hostname() && typeof info.pid === "number") {
    try {
      process.kill(info.pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ESRCH") return false; // holder died
    }
  }
  return true;
}
