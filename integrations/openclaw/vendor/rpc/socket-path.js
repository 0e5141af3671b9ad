// Generated from src/rpc/socket-path.ts by scripts/openclaw/gen-client.ts: do not edit.
import { chmodSync, existsSync, lstatSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { defaultDataDir, expandPath } from "../config/paths.js";
/**
 * Where the daemon's Unix socket lives (the one resolution order: the daemon, the CLI, the hooks and,
 * vendored, the OpenClaw plugin use it; bin/cortexd's shell fast path mirrors it and hands every case
 * it cannot decide to Node), and making its directory private.
 *
 * Order: --socket; $CORTEXD_SOCKET (trimmed; blanks are no setting); the config file's
 * daemon.socketPath; Linux: $XDG_RUNTIME_DIR/cortexd/cortexd.sock, else <dataDir>/run/cortexd.sock;
 * macOS: ~/Library/Application Support/cortexd/run/cortexd.sock, else $TMPDIR/cortexd-<uid>/cortexd.sock.
 * A socket named directly in a directory others can write to (like /tmp, mode 1777) goes into a
 * subdirectory cortexd creates and owns there instead: /tmp/x.sock → /tmp/cortexd-<uid>/x.sock.
 */
/** Written into a socket directory cortexd created: only such a directory has its mode tightened. */
const OWNED_MARK = ".cortexd-owned";
/** A directory other users can write to (group/world-writable or sticky, like /tmp). */
function isShared(mode) {
    return (mode & 0o022) !== 0 || (mode & 0o1000) !== 0;
}
/** The socket path actually used for `p`: inside `<dir>/cortexd-<uid>/` when p's directory is shared. */
export function placeSocket(p, uid = process.getuid?.() ?? 0) {
    const dir = dirname(p);
    let st;
    try {
        st = statSync(dir);
    }
    catch {
        return p;
    }
    if (!st.isDirectory() || !isShared(st.mode))
        return p;
    return join(dir, `cortexd-${uid}`, basename(p));
}
export const SOCKET_NAME = "cortexd.sock";
/** Longest usable socket path in bytes (sun_path minus the NUL): 108 on Linux, 104 on macOS/BSD. */
export function maxSocketPathBytes(platform = process.platform) {
    return platform === "linux" || platform === "android" ? 107 : 103;
}
export class SocketPathTooLongError extends Error {
    socketPath;
    limit;
    constructor(socketPath, limit) {
        super(`socket path is too long for a Unix socket (${Buffer.byteLength(socketPath)} bytes > ${limit}): ${socketPath}; ` +
            `set CORTEXD_SOCKET to a shorter path (e.g. /tmp/cortexd-$UID/cortexd.sock)`);
        this.socketPath = socketPath;
        this.limit = limit;
        this.name = "SocketPathTooLongError";
    }
}
/** Resolves the socket path; throws SocketPathTooLongError when no candidate fits in sun_path. */
export function resolveSocketPath(opts = {}) {
    const env = opts.env ?? process.env;
    const platform = opts.platform ?? process.platform;
    const limit = maxSocketPathBytes(platform);
    const fits = (p) => Buffer.byteLength(p) <= limit;
    const explicit = opts.socket?.trim() || env.CORTEXD_SOCKET?.trim() || opts.configured?.trim();
    if (explicit) {
        const p = placeSocket(expandPath(explicit, env), opts.uid);
        if (!fits(p))
            throw new SocketPathTooLongError(p, limit);
        return p;
    }
    const candidates = [];
    if (platform === "darwin") {
        const home = env.HOME || homedir();
        candidates.push(join(home, "Library", "Application Support", "cortexd", "run", SOCKET_NAME));
        const uid = opts.uid ?? process.getuid?.() ?? 0;
        candidates.push(join(resolve(env.TMPDIR || tmpdir()), `cortexd-${uid}`, SOCKET_NAME));
    }
    else {
        if (env.XDG_RUNTIME_DIR)
            candidates.push(join(resolve(env.XDG_RUNTIME_DIR), "cortexd", SOCKET_NAME));
        candidates.push(join(opts.dataDir ? expandPath(opts.dataDir, env) : defaultDataDir(env), "run", SOCKET_NAME));
    }
    const ok = candidates.find(fits);
    if (ok)
        return ok;
    throw new SocketPathTooLongError(candidates[candidates.length - 1], limit);
}
/**
 * Makes sure the socket's directory exists, is a directory, belongs to us and is private enough.
 * Creates it (recursively) 0700 and marks it as cortexd's; tightens to 0700 only a directory cortexd
 * created (marked, or named cortexd / cortexd-<uid>); never changes the mode of any other directory:
 * one others can write to (a symlink in a shared directory, or a shared directory itself) is refused
 * with a message, one only readable by others is used as it is (the socket itself is 0600). Refuses
 * a directory owned by someone else, and the home directory unless it is 0700.
 */
export function prepareSocketDir(socketPath, env = process.env) {
    const dir = dirname(socketPath);
    let created = false;
    try {
        statSync(dir);
    }
    catch (err) {
        if (err.code !== "ENOENT")
            throw err;
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        created = true;
        writeFileSync(join(dir, OWNED_MARK), "", { mode: 0o600 });
    }
    const parent = statSync(dirname(dir), { throwIfNoEntry: false });
    if (parent && isShared(parent.mode) && lstatSync(dir).isSymbolicLink()) {
        throw new Error(`socket directory ${dir} is a symlink in a directory others can write to; remove it, or set CORTEXD_SOCKET to a path in a directory of your own`);
    }
    const st = statSync(dir);
    if (!st.isDirectory())
        throw new Error(`socket directory ${dir} exists but is not a directory`);
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) {
        throw new Error(`socket directory ${dir} is owned by uid ${st.uid}, not by you (uid ${uid}); ` +
            `set CORTEXD_SOCKET to a path in a directory of your own`);
    }
    const mode = st.mode & 0o7777;
    if ((mode & 0o777) === 0o700)
        return { dir, created };
    if (!created && resolve(dir) === resolve(env.HOME || homedir())) {
        throw new Error(`refusing to chmod your home directory ${dir} to 0700 for the socket; ` +
            `set CORTEXD_SOCKET to a path in a dedicated directory (e.g. ~/.cortexd/cortexd.sock)`);
    }
    const ours = created || existsSync(join(dir, OWNED_MARK)) || /^cortexd(-\d+)?$/.test(basename(dir));
    if (!ours) {
        if (isShared(mode)) {
            throw new Error(`socket directory ${dir} is writable by others (mode ${mode.toString(8)}) and was not created by cortexd, so its mode is not changed; ` +
                `set CORTEXD_SOCKET to a path in a private directory (e.g. ${join(dir, `cortexd-${uid ?? 0}`, SOCKET_NAME)})`);
        }
        return { dir, created };
    }
    chmodSync(dir, 0o700);
    return created ? { dir, created } : { dir, created, fixedMode: mode & 0o777 };
}
