import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { Logger } from "pino";
import { errorMessage } from "./error-message.js";

/**
 * Keeping cortexd's own data private to its user: directories 0700, files 0600. Checked at daemon
 * start: looser modes are tightened (and logged), anything owned by another user is refused, since
 * tightening someone else's files is not ours to do and trusting them is not safe.
 */

export class NotOwnedError extends Error {
  constructor(
    readonly path: string,
    readonly ownerUid: number,
    readonly uid: number,
  ) {
    super(
      `${path} is owned by uid ${ownerUid}, not by you (uid ${uid}); cortexd keeps its data private and will not use it: ` +
        `fix the owner (chown -R ${uid} ${path}) or point CORTEXD_DATA_DIR / CORTEXD_SOCKET somewhere of your own`,
    );
    this.name = "NotOwnedError";
  }
}

export interface ModeFix {
  path: string;
  /** The mode found (e.g. 0o755) and the mode set. */
  from: number;
  to: number;
  /** Set when the mode could not be changed because the filesystem is read-only (the error). */
  failed?: string;
}

/** chmod; on a read-only filesystem the error is returned instead (nothing can change there, and reads must go on). */
function chmodUnlessReadOnly(path: string, mode: number): string | undefined {
  try {
    chmodSync(path, mode);
    return undefined;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EROFS") return errorMessage(e);
    throw e;
  }
}

const myUid = (): number | undefined => process.getuid?.();

function checkOwner(path: string, ownerUid: number): void {
  const uid = myUid();
  if (uid !== undefined && ownerUid !== uid) throw new NotOwnedError(path, ownerUid, uid);
}

/**
 * A directory that exists (created 0700, with its parents, when missing), is a directory, is ours and
 * is 0700. Refuses to chmod the home directory. Returns the fix made, if any.
 */
export function ensurePrivateDir(
  dir: string,
  env: NodeJS.ProcessEnv = process.env,
): { created: boolean; fix?: ModeFix } {
  let created = false;
  if (!statSync(dir, { throwIfNoEntry: false })) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    created = true;
  }
  const st = statSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} exists but is not a directory`);
  checkOwner(dir, st.uid);
  const mode = st.mode & 0o777;
  if (mode === 0o700) return { created };
  if (!created && resolve(dir) === resolve(env.HOME || homedir())) {
    throw new Error(
      `refusing to chmod your home directory ${dir} to 0700; use a dedicated directory for cortexd's data and socket`,
    );
  }
  const failed = chmodUnlessReadOnly(dir, 0o700);
  return created ? { created } : { created, fix: { path: dir, from: mode, to: 0o700, ...(failed ? { failed } : {}) } };
}

/** A regular file of ours, readable and writable by us only (group/other bits are removed). Symlinks and other types are left alone. */
export function ensurePrivateFile(path: string): ModeFix | undefined {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st || !st.isFile()) return undefined;
  checkOwner(path, st.uid);
  const mode = st.mode & 0o777;
  if ((mode & 0o077) === 0) return undefined;
  const to = mode & 0o700;
  const failed = chmodUnlessReadOnly(path, to);
  return { path, from: mode, to, ...(failed ? { failed } : {}) };
}

/** Subdirectories of the data dir that hold private data (indexes, session state, logs, the fallback socket). */
const PRIVATE_SUBDIRS = ["indexes", "state", "logs", "run"];

/**
 * The data dir and what it holds: the dir and its private subdirectories 0700, the files in them
 * (SQLite indexes and their -wal/-shm, session state, logs) 0600. `models/` holds only public model
 * files; its directory is checked, not its files. Logs each fix; throws NotOwnedError for anything
 * owned by another user.
 */
export function securePrivateData(dataDir: string, logger?: Logger, env: NodeJS.ProcessEnv = process.env): ModeFix[] {
  const fixes: ModeFix[] = [];
  const dir = ensurePrivateDir(dataDir, env);
  if (dir.fix) fixes.push(dir.fix);
  for (const sub of [...PRIVATE_SUBDIRS, "models"]) {
    const p = join(dataDir, sub);
    if (!statSync(p, { throwIfNoEntry: false })?.isDirectory()) continue;
    const d = ensurePrivateDir(p, env);
    if (d.fix) fixes.push(d.fix);
    if (sub === "models") continue;
    for (const name of readdirSync(p)) {
      const f = ensurePrivateFile(join(p, name));
      if (f) fixes.push(f);
    }
  }
  for (const f of fixes) {
    if (f.failed)
      logger?.warn(
        { path: f.path, mode: octal(f.from), err: f.failed },
        "permissions are looser than owner-only and cannot be tightened on a read-only filesystem",
      );
    else
      logger?.warn(
        { path: f.path, from: octal(f.from), to: octal(f.to) },
        "permissions were looser than owner-only; tightened",
      );
  }
  return fixes;
}

export function octal(mode: number): string {
  return "0" + mode.toString(8).padStart(3, "0");
}
