import type { MethodName, MethodResults, ParamsOf } from "../rpc/protocol.js";
import { RpcConnection, type CallOptions, type ConnectOptions } from "./connection.js";
import { DaemonUnavailableError, RpcError, type UnavailableReason } from "./errors.js";

/**
 * The typed client for the cortexd socket: the wire protocol's method names, params and results
 * (src/rpc/protocol.ts, types only) over the one connection (connection.ts).
 */

export { DaemonUnavailableError, RpcError, type UnavailableReason } from "./errors.js";
export type { CallOptions, ConnectOptions } from "./connection.js";

/** Params may be omitted for methods whose params are all optional. */
export type CallArgs<M extends MethodName> =
  Record<never, never> extends ParamsOf<M>
    ? [params?: ParamsOf<M>, opts?: CallOptions]
    : [params: ParamsOf<M>, opts?: CallOptions];

export class CortexClient {
  private constructor(private readonly connection: RpcConnection) {}

  get socketPath(): string {
    return this.connection.socketPath;
  }

  /** Connects; rejects with DaemonUnavailableError (no-socket, stale-socket, permission, timeout, error). */
  static async connect(socketPath: string, opts: ConnectOptions = {}): Promise<CortexClient> {
    return new CortexClient(await RpcConnection.connect(socketPath, opts));
  }

  call<M extends MethodName>(method: M, ...args: CallArgs<M>): Promise<MethodResults[M]> {
    const [params, opts] = args as [ParamsOf<M> | undefined, CallOptions | undefined];
    return this.connection.call(method, params ?? {}, opts) as Promise<MethodResults[M]>;
  }

  /** Closes the connection; calls still pending reject with DaemonUnavailableError("closed"). */
  close(): void {
    this.connection.close();
  }

  get closed(): boolean {
    return this.connection.closed;
  }
}

/** Connects, runs fn, closes. */
export async function withClient<T>(
  socketPath: string,
  fn: (client: CortexClient) => Promise<T> | T,
  opts?: ConnectOptions,
): Promise<T> {
  const client = await CortexClient.connect(socketPath, opts);
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

export type ProbeResult =
  { up: true; ping: MethodResults["daemon.ping"] } | { up: false; reason: UnavailableReason; detail: string };

/** Is the daemon up and answering? Never throws. */
export async function probeDaemon(socketPath: string, timeoutMs = 2000): Promise<ProbeResult> {
  try {
    const ping = await withClient(socketPath, (c) => c.call("daemon.ping", {}), { timeoutMs });
    return { up: true, ping };
  } catch (err) {
    if (err instanceof DaemonUnavailableError) return { up: false, reason: err.reason, detail: err.message };
    const detail = err instanceof RpcError ? `cortexd answered with error ${err.code}: ${err.message}` : String(err);
    return { up: false, reason: "error", detail };
  }
}
