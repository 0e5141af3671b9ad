import type { Socket } from "node:net";
import { JSONRPCClient, createJSONRPCErrorResponse, type JSONRPCResponse } from "json-rpc-2.0";
import { connectUnix } from "../rpc/connect.js";
import type { MethodName, MethodResults, ParamsOf } from "../rpc/protocol.js";

/**
 * Typed client for the cortexd socket (NDJSON-framed JSON-RPC 2.0 via json-rpc-2.0's JSONRPCClient).
 * One connection carries any number of concurrent calls. Failures to reach the daemon are
 * DaemonUnavailableError (with a reason for `cortexd status`); errors the daemon answered are RpcCallError.
 */

export type UnavailableReason = "no-socket" | "stale-socket" | "permission" | "timeout" | "closed" | "error";

export class DaemonUnavailableError extends Error {
  constructor(
    readonly reason: UnavailableReason,
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = "DaemonUnavailableError";
  }
}

/** An error response from the daemon (code from ErrorCodes). */
export class RpcCallError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RpcCallError";
  }
}

export interface ConnectOptions {
  /** Connect timeout, and the default per-call timeout. Default 5000 ms; 0 = no call timeout. */
  timeoutMs?: number;
  /** Longest accepted response line. Default 64 MiB. */
  maxResponseBytes?: number;
}

export interface CallOptions {
  /** Overrides the connection's default; 0 = wait indefinitely (e.g. a long index.sync). */
  timeoutMs?: number;
}

/** Params may be omitted for methods whose params are all optional. */
export type CallArgs<M extends MethodName> =
  Record<never, never> extends ParamsOf<M>
    ? [params?: ParamsOf<M>, opts?: CallOptions]
    : [params: ParamsOf<M>, opts?: CallOptions];

/** Marks the error responses json-rpc-2.0 synthesizes for our timeouts. */
const TIMEOUT_MARK = { cortexdTimeout: true };

export class CortexClient {
  private readonly rpc: JSONRPCClient;
  private readonly pending = new Set<(err: Error) => void>();
  private closedError: Error | undefined;
  /** An error the daemon sent with id null (e.g. request too large) just before hanging up. */
  private lastConnectionError: RpcCallError | undefined;
  private buf: Buffer[] = [];
  private bufBytes = 0;

  private constructor(
    private readonly socket: Socket,
    readonly socketPath: string,
    private readonly defaultTimeoutMs: number,
    private readonly maxResponseBytes: number,
  ) {
    this.rpc = new JSONRPCClient((payload: unknown) => {
      if (this.closedError) throw this.closedError;
      socket.write(JSON.stringify(payload) + "\n");
    });
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("error", (err: NodeJS.ErrnoException) => {
      this.shutdown(
        this.lastConnectionError ??
          new DaemonUnavailableError("closed", `connection to cortexd failed: ${err.message}`, err.code),
      );
    });
    socket.on("close", () => {
      this.shutdown(this.lastConnectionError ?? new DaemonUnavailableError("closed", "cortexd closed the connection"));
    });
  }

  /** Connects; rejects with DaemonUnavailableError (no-socket, stale-socket, permission, timeout, error). */
  static async connect(socketPath: string, opts: ConnectOptions = {}): Promise<CortexClient> {
    const timeoutMs = opts.timeoutMs ?? 5000;
    try {
      const socket = await connectUnix(socketPath, timeoutMs > 0 ? timeoutMs : 5000);
      return new CortexClient(socket, socketPath, timeoutMs, opts.maxResponseBytes ?? 64 * 1024 * 1024);
    } catch (err) {
      throw connectError(socketPath, err as NodeJS.ErrnoException);
    }
  }

  call<M extends MethodName>(method: M, ...args: CallArgs<M>): Promise<MethodResults[M]> {
    const [params, opts] = args as [ParamsOf<M> | undefined, CallOptions | undefined];
    if (this.closedError) return Promise.reject(this.closedError);
    const timeoutMs = opts?.timeoutMs ?? this.defaultTimeoutMs;
    const requester =
      timeoutMs > 0 && Number.isFinite(timeoutMs)
        ? this.rpc.timeout(timeoutMs, (id) => createJSONRPCErrorResponse(id, 0, "timeout", TIMEOUT_MARK))
        : this.rpc;
    return new Promise<MethodResults[M]>((resolve, reject) => {
      this.pending.add(reject);
      const request = { jsonrpc: "2.0" as const, id: this.nextId(), method, params: params ?? {} };
      Promise.resolve(requester.requestAdvanced(request))
        .then((res: JSONRPCResponse) => {
          if (this.closedError) return reject(this.closedError);
          if (!res.error) return resolve(res.result as MethodResults[M]);
          if (res.error.data === TIMEOUT_MARK) {
            return reject(
              new DaemonUnavailableError("timeout", `cortexd did not answer ${method} within ${timeoutMs} ms`),
            );
          }
          reject(new RpcCallError(res.error.code, res.error.message, res.error.data));
        }, reject)
        .finally(() => this.pending.delete(reject));
    });
  }

  /** Closes the connection; calls still pending reject with DaemonUnavailableError("closed"). */
  close(): void {
    this.shutdown(new DaemonUnavailableError("closed", "client closed"));
  }

  get closed(): boolean {
    return this.closedError !== undefined;
  }

  private idCounter = 0;
  private nextId(): number {
    return ++this.idCounter;
  }

  private shutdown(err: Error): void {
    if (this.closedError) return;
    this.closedError = err;
    this.socket.destroy();
    for (const reject of this.pending) reject(err);
    this.pending.clear();
    this.rpc.rejectAllPendingRequests(err.message); // frees json-rpc-2.0's own bookkeeping
  }

  private onData(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      const line = this.bufBytes ? Buffer.concat([...this.buf, piece]) : piece;
      this.buf = [];
      this.bufBytes = 0;
      this.onLine(line.toString("utf8"));
      if (this.closedError) return;
    }
    if (start < chunk.length) {
      this.bufBytes += chunk.length - start;
      if (this.bufBytes > this.maxResponseBytes) {
        this.shutdown(
          new DaemonUnavailableError("error", `response from cortexd exceeds ${this.maxResponseBytes} bytes`),
        );
        return;
      }
      this.buf.push(chunk.subarray(start));
    }
  }

  private onLine(line: string): void {
    if (line.trim() === "") return;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      this.shutdown(new DaemonUnavailableError("error", "cortexd sent invalid JSON"));
      return;
    }
    for (const res of Array.isArray(msg) ? msg : [msg]) {
      if (typeof res !== "object" || res === null) continue;
      const r = res as JSONRPCResponse;
      if (r.id === null || r.id === undefined) {
        if (r.error) this.lastConnectionError = new RpcCallError(r.error.code, r.error.message, r.error.data);
        continue;
      }
      this.rpc.receive(r);
    }
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
    const detail =
      err instanceof RpcCallError ? `cortexd answered with error ${err.code}: ${err.message}` : String(err);
    return { up: false, reason: "error", detail };
  }
}

function connectError(socketPath: string, err: NodeJS.ErrnoException): DaemonUnavailableError {
  const code = err.code;
  switch (code) {
    case "ENOENT":
    case "ENOTDIR":
      return new DaemonUnavailableError("no-socket", `cortexd is not running (no socket at ${socketPath})`, code);
    case "ECONNREFUSED":
    case "ENOTSOCK":
      return new DaemonUnavailableError("stale-socket", `cortexd is not running (stale socket at ${socketPath})`, code);
    case "EACCES":
    case "EPERM":
      return new DaemonUnavailableError("permission", `permission denied connecting to ${socketPath}`, code);
    case "ETIMEDOUT":
    case "EAGAIN":
      return new DaemonUnavailableError("timeout", `timed out connecting to cortexd at ${socketPath}`, code);
    default:
      return new DaemonUnavailableError("error", `cannot connect to ${socketPath}: ${err.message}`, code);
  }
}
