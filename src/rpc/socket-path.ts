import { chmodSync, mkdirSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { defaultDataDir, expandPath } from "../config/paths.js";

/**
 * Where the daemon's Unix socket lives, and making its directory private.
 *
 * Order: $CORTEXD_SOCKET; Linux: $XDG_RUNTIME_DIR/cortexd/cortexd.sock, else <dataDir>/run/cortexd.sock;
 * macOS: ~/Library/Application Support/cortexd/run/cortexd.sock, else $TMPDIR/cortexd-<uid>/cortexd.sock.
 */

export const SOCKET_NAME = "cortexd.sock";

/** Longest usable socket path in bytes (sun_path minus the NUL): 108 on Linux, 104 on macOS/BSD. */
export function maxSocketPathBytes(platform: NodeJS.Platform = process.platform): number {
  return platform === "linux" || platform === "android" ? 107 : 103;
}

export class SocketPathTooLongError extends Error {
  constructor(
    readonly socketPath: string,
    readonly limit: number,
  ) {
    super(
      `socket path is too long for a Unix socket (${Buffer.byteLength(socketPath)} bytes > ${limit}): ${socketPath}; ` +
        `set CORTEXD_SOCKET to a shorter path (e.g. /tmp/cortexd-$UID/cortexd.sock)`,
    );
    this.name = "SocketPathTooLongError";
  }
}

export interface ResolveSocketPathOptions {
  env?: NodeJS.ProcessEnv;
  /** Defaults to $XDG_DATA_HOME/cortexd. */
  dataDir?: string;
  platform?: NodeJS.Platform;
  /** Used for the per-user $TMPDIR fallback on macOS. */
  uid?: number;
}

/** Resolves the socket path; throws SocketPathTooLongError when no candidate fits in sun_path. */
export function resolveSocketPath(opts: ResolveSocketPathOptions = {}): string {
  const env = opts.env ?? process.env;
  const platform = opts.platform ?? process.platform;
  const limit = maxSocketPathBytes(platform);
  const fits = (p: string) => Buffer.byteLength(p) <= limit;

  const explicit = env.CORTEXD_SOCKET?.trim();
  if (explicit) {
    const p = expandPath(explicit, env);
    if (!fits(p)) throw new SocketPathTooLongError(p, limit);
    return p;
  }

  const candidates: string[] = [];
  if (platform === "darwin") {
    const home = env.HOME || homedir();
    candidates.push(join(home, "Library", "Application Support", "cortexd", "run", SOCKET_NAME));
    const uid = opts.uid ?? process.getuid?.() ?? 0;
    candidates.push(join(resolve(env.TMPDIR || tmpdir()), `cortexd-${uid}`, SOCKET_NAME));
  } else {
    if (env.XDG_RUNTIME_DIR) candidates.push(join(resolve(env.XDG_RUNTIME_DIR), "cortexd", SOCKET_NAME));
    candidates.push(join(opts.dataDir ? expandPath(opts.dataDir, env) : defaultDataDir(env), "run", SOCKET_NAME));
  }
  const ok = candidates.find(fits);
  if (ok) return ok;
  throw new SocketPathTooLongError(candidates[candidates.length - 1]!, limit);
}

export interface PreparedSocketDir {
  dir: string;
  created: boolean;
  /** Set when an existing directory had looser permissions and was chmod'ed to 0700. */
  fixedMode?: number;
}

/**
 * Makes sure the socket's directory exists, is a directory, belongs to us and is 0700.
 * Creates it (recursively) 0700; chmods an existing one we own; refuses one owned by someone else,
 * and refuses to chmod the home directory (point CORTEXD_SOCKET at a dedicated directory instead).
 */
export function prepareSocketDir(socketPath: string, env: NodeJS.ProcessEnv = process.env): PreparedSocketDir {
  const dir = dirname(socketPath);
  let created = false;
  try {
    statSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    created = true;
  }
  const st = statSync(dir);
  if (!st.isDirectory()) throw new Error(`socket directory ${dir} exists but is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new Error(
      `socket directory ${dir} is owned by uid ${st.uid}, not by you (uid ${uid}); ` +
        `set CORTEXD_SOCKET to a path in a directory of your own`,
    );
  }
  const mode = st.mode & 0o777;
  if (mode === 0o700) return { dir, created };
  if (!created && resolve(dir) === resolve(env.HOME || homedir())) {
    throw new Error(
      `refusing to chmod your home directory ${dir} to 0700 for the socket; ` +
        `set CORTEXD_SOCKET to a path in a dedicated directory (e.g. ~/.cortexd/cortexd.sock)`,
    );
  }
  chmodSync(dir, 0o700);
  return created ? { dir, created } : { dir, created, fixedMode: mode };
}
