/**
 * ensureBuiltinModel: the built-in model's path, built on first use.
 *
 * Safe with several processes (daemon + CLI) starting at once: the builder takes a lock file
 * (<model>.lock, util/lock-file.ts) and the GGUF writer writes a temp file and renames it, so a
 * reader never sees a partial model. Others wait for the lock to go away; a lock whose process
 * is dead (same host) or older than 15 minutes is taken over.
 * A model written by an older builder version (cortexd.builder.version) is rebuilt.
 */
import { mkdir } from "node:fs/promises";
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
import { holderAlive, takeLock, type ReadLock, type Verdict } from "../../util/lock-file.js";

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
  // Owner-only from the start (the daemon's private-data check would otherwise tighten them later).
  await mkdir(path.dirname(lockPath), { recursive: true, mode: 0o700 });
  // Someone else building: wait for their lock to go away (then the model is usually there).
  const got = await takeLock(
    lockPath,
    {},
    {
      judge: (cur) => buildLockVerdict(cur, lockPath),
      deadline: Date.now() + (opts.waitTimeoutMs ?? STALE_LOCK_MS),
      pollMs: POLL_MS,
      timeout: () => new Error(`timed out waiting for another process to build ${target} (lock ${lockPath})`),
    },
  );
  if (!("taken" in got)) throw new Error(`${lockPath} is held`); // buildLockVerdict never says "held"
  try {
    // Another process may have finished between our check and taking the lock.
    if (await isCurrentBuiltinModel(target)) return target;
    await buildBuiltinModel(target, { ...opts.build, ...(opts.onProgress ? { onProgress: opts.onProgress } : {}) });
    return target;
  } finally {
    got.taken.release();
  }
}

/** A build lock is abandoned when its process is gone (same host), or older than any build takes. */
function buildLockVerdict(cur: ReadLock, lockPath: string): Verdict {
  if (Date.now() - cur.mtimeMs > STALE_LOCK_MS) return "stale";
  if (!cur.record) return "wait"; // being written right now
  return holderAlive(cur.record, lockPath) ? "wait" : "stale";
}
