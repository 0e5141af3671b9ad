// @ts-check
/**
 * A small NDJSON JSON-RPC 2.0 client for cortexd's Unix socket (no dependencies). One connection
 * is kept and reused; it is reopened after the daemon restarts. Every call has a timeout.
 */
import { createConnection } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";

/**
 * Where cortexd listens, resolved exactly as the daemon does from the environment (a copy of
 * src/rpc/socket-path.ts's resolveSocketPath, kept dependency-free; test/openclaw-socket-path.test.ts
 * runs both on the same cases): $CORTEXD_SOCKET (trimmed, ~ expanded); Linux:
 * $XDG_RUNTIME_DIR/cortexd/cortexd.sock, else <data dir>/run/cortexd.sock with the data dir
 * $CORTEXD_DATA_DIR or $XDG_DATA_HOME/cortexd; macOS: ~/Library/Application Support/cortexd/run/cortexd.sock,
 * else $TMPDIR/cortexd-<uid>/cortexd.sock. A candidate longer than a Unix socket path can be is
 * skipped; when none fits, SocketPathTooLongError.
 * @param {NodeJS.ProcessEnv} [env]
 * @param {{ platform?: NodeJS.Platform, uid?: number }} [opts]
 */
export function defaultSocketPath(env = process.env, opts = {}) {
  const platform = opts.platform ?? process.platform;
  const limit = platform === "linux" || platform === "android" ? 107 : 103;
  const fits = (/** @type {string} */ p) => Buffer.byteLength(p) <= limit;
  const home = env.HOME || homedir();
  const expand = (/** @type {string} */ p) =>
    p === "~" ? home : p.startsWith("~/") ? join(home, p.slice(2)) : resolve(p);

  const explicit = env.CORTEXD_SOCKET?.trim();
  if (explicit) {
    const p = expand(explicit);
    if (!fits(p)) throw new SocketPathTooLongError(p, limit);
    return p;
  }
  /** @type {string[]} */
  const candidates = [];
  if (platform === "darwin") {
    candidates.push(join(home, "Library", "Application Support", "cortexd", "run", "cortexd.sock"));
    const uid = opts.uid ?? process.getuid?.() ?? 0;
    candidates.push(join(resolve(env.TMPDIR || tmpdir()), `cortexd-${uid}`, "cortexd.sock"));
  } else {
    if (env.XDG_RUNTIME_DIR) candidates.push(join(resolve(env.XDG_RUNTIME_DIR), "cortexd", "cortexd.sock"));
    const dataDir = env.CORTEXD_DATA_DIR
      ? expand(env.CORTEXD_DATA_DIR)
      : join(env.XDG_DATA_HOME ? resolve(env.XDG_DATA_HOME) : join(home, ".local", "share"), "cortexd");
    candidates.push(join(dataDir, "run", "cortexd.sock"));
  }
  const ok = candidates.find(fits);
  if (ok) return ok;
  throw new SocketPathTooLongError(/** @type {string} */ (candidates[candidates.length - 1]), limit);
}

export class SocketPathTooLongError extends Error {
  /** @param {string} socketPath @param {number} limit */
  constructor(socketPath, limit) {
    super(
      `socket path is too long for a Unix socket (${Buffer.byteLength(socketPath)} bytes > ${limit}): ${socketPath}; ` +
        `set CORTEXD_SOCKET to a shorter path (e.g. /tmp/cortexd-$UID/cortexd.sock)`,
    );
    this.name = "SocketPathTooLongError";
    this.socketPath = socketPath;
    this.limit = limit;
  }
}

export class CortexdError extends Error {
  /**
   * @param {"unavailable" | "timeout" | "rpc"} kind
   * @param {string} message
   * @param {number | string} [code]
   */
  constructor(kind, message, code) {
    super(message);
    this.name = "CortexdError";
    this.kind = kind;
    this.code = code;
  }
}

/**
 * @param {{ socketPath: string, connectTimeoutMs?: number }} opts
 */
export function createClient(opts) {
  /** @type {import("node:net").Socket | null} */
  let socket = null;
  /** @type {Promise<import("node:net").Socket> | null} */
  let connecting = null;
  /** @type {Map<number, { resolve: (v: any) => void, reject: (e: Error) => void, timer: NodeJS.Timeout }>} */
  const pending = new Map();
  let nextId = 0;
  let buf = "";

  /** @param {Error} err */
  function failAll(err) {
    for (const p of pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    pending.clear();
  }

  /** @returns {Promise<import("node:net").Socket>} */
  function connect() {
    if (socket && !socket.destroyed) return Promise.resolve(socket);
    if (connecting) return connecting;
    connecting = new Promise((res, rej) => {
      const s = createConnection({ path: opts.socketPath });
      const timer = setTimeout(() => {
        s.destroy();
        rej(new CortexdError("unavailable", `cortexd did not accept a connection at ${opts.socketPath} in time`));
      }, opts.connectTimeoutMs ?? 1000);
      s.setEncoding("utf8");
      s.once("connect", () => {
        clearTimeout(timer);
        socket = s;
        buf = "";
        s.unref(); // never keep the gateway alive for us
        res(s);
      });
      s.on("error", (/** @type {NodeJS.ErrnoException} */ err) => {
        clearTimeout(timer);
        const e = new CortexdError(
          "unavailable",
          `cortexd is not reachable at ${opts.socketPath} (${err.code ?? err.message})`,
          err.code,
        );
        if (socket !== s) rej(e);
        failAll(e);
      });
      s.on("close", () => {
        if (socket === s) socket = null;
        failAll(new CortexdError("unavailable", "cortexd closed the connection"));
      });
      s.on("data", (/** @type {string} */ chunk) => {
        buf += chunk;
        let nl;
        while ((nl = buf.indexOf("\n")) !== -1) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          let msg;
          try {
            msg = JSON.parse(line);
          } catch {
            continue;
          }
          const p = typeof msg.id === "number" ? pending.get(msg.id) : undefined;
          if (!p) continue;
          pending.delete(msg.id);
          clearTimeout(p.timer);
          if (msg.error) p.reject(new CortexdError("rpc", msg.error.message, msg.error.code));
          else p.resolve(msg.result);
        }
        if (pending.size === 0) s.unref();
      });
    }).finally(() => {
      connecting = null;
    });
    return /** @type {Promise<import("node:net").Socket>} */ (connecting);
  }

  return {
    socketPath: opts.socketPath,
    /**
     * @param {string} method
     * @param {Record<string, unknown>} params
     * @param {{ timeoutMs?: number }} [o]
     * @returns {Promise<any>}
     */
    async call(method, params, o = {}) {
      const timeoutMs = o.timeoutMs ?? 5000;
      const started = Date.now();
      const s = await withTimeout(connect(), timeoutMs, opts.socketPath);
      const id = ++nextId;
      return new Promise((res, rej) => {
        const left = Math.max(1, timeoutMs - (Date.now() - started));
        const timer = setTimeout(() => {
          pending.delete(id);
          rej(new CortexdError("timeout", `cortexd did not answer ${method} within ${timeoutMs} ms`));
        }, left);
        pending.set(id, { resolve: res, reject: rej, timer });
        s.ref();
        s.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
      });
    },
    /**
     * A notification: no reply expected.
     * @param {string} method
     * @param {Record<string, unknown>} params
     */
    async notify(method, params) {
      const s = await connect();
      s.write(JSON.stringify({ jsonrpc: "2.0", method, params }) + "\n");
    },
    /** Opens the connection now (at service start), so the first recall does not pay for it. */
    async warm() {
      await connect();
    },
    close() {
      socket?.destroy();
      socket = null;
    },
  };
}

/**
 * @template T
 * @param {Promise<T>} p
 * @param {number} ms
 * @param {string} socketPath
 * @returns {Promise<T>}
 */
function withTimeout(p, ms, socketPath) {
  return new Promise((res, rej) => {
    const t = setTimeout(
      () => rej(new CortexdError("timeout", `timed out connecting to cortexd at ${socketPath}`)),
      ms,
    );
    p.then(
      (v) => {
        clearTimeout(t);
        res(v);
      },
      (e) => {
        clearTimeout(t);
        rej(e);
      },
    );
  });
}
