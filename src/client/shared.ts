import { RpcConnection } from "./connection.js";
import { DaemonUnavailableError } from "./errors.js";

/**
 * One connection for a long-lived host (the OpenClaw gateway): opened on first use (or warm()),
 * reused by every call, reopened after the daemon restarts, never keeping the host's process alive.
 * Each call's timeout covers the connect too.
 */

export interface SharedClient {
  readonly socketPath: string;
  /** Calls a method; rejects with DaemonUnavailableError or RpcError. Default timeout 5000 ms. */
  call(method: string, params: object, opts?: { timeoutMs?: number }): Promise<unknown>;
  /** A notification: no reply expected. */
  notify(method: string, params: object): Promise<void>;
  /** Opens the connection now (at service start), so the first call does not pay for it. */
  warm(): Promise<void>;
  close(): void;
}

export function sharedClient(opts: { socketPath: string; connectTimeoutMs?: number }): SharedClient {
  let connection: RpcConnection | undefined;
  let connecting: Promise<RpcConnection> | undefined;

  const connect = (): Promise<RpcConnection> => {
    if (connection && !connection.closed) return Promise.resolve(connection);
    connecting ??= RpcConnection.connect(opts.socketPath, {
      timeoutMs: opts.connectTimeoutMs ?? 1000,
      unrefWhenIdle: true,
    })
      .then((c) => (connection = c))
      .finally(() => (connecting = undefined));
    return connecting;
  };

  return {
    socketPath: opts.socketPath,
    async call(method, params, o = {}) {
      const timeoutMs = o.timeoutMs ?? 5000;
      const started = Date.now();
      const c = await within(connect(), timeoutMs, opts.socketPath);
      return c.call(method, params, { timeoutMs: Math.max(1, timeoutMs - (Date.now() - started)) });
    },
    async notify(method, params) {
      (await connect()).notify(method, params);
    },
    async warm() {
      await connect();
    },
    close() {
      connection?.close();
      connection = undefined;
    },
  };
}

function within<T>(p: Promise<T>, ms: number, socketPath: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(
      () => reject(new DaemonUnavailableError("timeout", `timed out connecting to cortexd at ${socketPath}`)),
      ms,
    );
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
