// @ts-check
/**
 * A small NDJSON JSON-RPC 2.0 client for cortexd's Unix socket (no dependencies). One connection
 * is kept and reused; it is reopened after the daemon restarts. Every call has a timeout.
 */
import { createConnection } from "node:net";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Where cortexd listens, resolved like the daemon does (minus its config file). */
export function defaultSocketPath(env = process.env) {
  if (env.CORTEXD_SOCKET) return resolve(env.CORTEXD_SOCKET.replace(/^~(?=\/|$)/, env.HOME || homedir()));
  const home = env.HOME || homedir();
  if (process.platform === "darwin") return join(home, "Library", "Application Support", "cortexd", "run", "cortexd.sock");
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, "cortexd", "cortexd.sock");
  const data = env.CORTEXD_DATA_DIR || join(env.XDG_DATA_HOME || join(home, ".local", "share"), "cortexd");
  return join(data, "run", "cortexd.sock");
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
        const e = new CortexdError("unavailable", `cortexd is not reachable at ${opts.socketPath} (${err.code ?? err.message})`, err.code);
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
    const t = setTimeout(() => rej(new CortexdError("timeout", `timed out connecting to cortexd at ${socketPath}`)), ms);
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
