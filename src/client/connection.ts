import type { Socket } from "node:net";
import { connectUnix } from "../rpc/connect.js";
import { DaemonUnavailableError, RpcError, connectError } from "./errors.js";

/**
 * The one JSON-RPC 2.0 client connection to the daemon's socket (NDJSON framing), used by the CLI
 * (through the typed CortexClient), the hooks, MCP and, vendored, the OpenClaw plugin. node:net only:
 * no validation library or config, so a hook starts fast and the OpenClaw copy needs no dependency.
 * Any number of calls share the connection; each has its own timeout (0 = none). Failing to reach
 * the daemon is DaemonUnavailableError (with a reason); an error the daemon answered is RpcError.
 */

export interface ConnectOptions {
  /** Connect timeout, and the default per-call timeout. Default 5000 ms; 0 = no call timeout. */
  timeoutMs?: number;
  /** Longest accepted response line. Default 64 MiB. */
  maxResponseBytes?: number;
  /** Let the process exit while no call is waiting (a long-lived host keeping the connection open). */
  unrefWhenIdle?: boolean;
}

export interface CallOptions {
  /** Overrides the connection's default; 0 = wait indefinitely (e.g. a long index.sync). */
  timeoutMs?: number;
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export class RpcConnection {
  private readonly pending = new Map<number, Pending>();
  private closedError: Error | undefined;
  /** An error the daemon sent with id null (e.g. request too large) just before hanging up. */
  private lastConnectionError: RpcError | undefined;
  private buf: Buffer[] = [];
  private bufBytes = 0;
  private idCounter = 0;

  private constructor(
    private readonly socket: Socket,
    readonly socketPath: string,
    private readonly opts: Required<ConnectOptions>,
  ) {
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
    if (opts.unrefWhenIdle) socket.unref();
  }

  /** Connects; rejects with DaemonUnavailableError (no-socket, stale-socket, permission, timeout, error). */
  static async connect(socketPath: string, opts: ConnectOptions = {}): Promise<RpcConnection> {
    const timeoutMs = opts.timeoutMs ?? 5000;
    let socket: Socket;
    try {
      socket = await connectUnix(socketPath, timeoutMs > 0 ? timeoutMs : 5000);
    } catch (err) {
      throw connectError(socketPath, err as NodeJS.ErrnoException);
    }
    return new RpcConnection(socket, socketPath, {
      timeoutMs,
      maxResponseBytes: opts.maxResponseBytes ?? 64 * 1024 * 1024,
      unrefWhenIdle: opts.unrefWhenIdle ?? false,
    });
  }

  /** Calls a method; resolves with its result. */
  call(method: string, params: object, opts: CallOptions = {}): Promise<unknown> {
    if (this.closedError) return Promise.reject(this.closedError);
    const timeoutMs = opts.timeoutMs ?? this.opts.timeoutMs;
    const id = ++this.idCounter;
    return new Promise((resolve, reject) => {
      const timer =
        timeoutMs > 0 && Number.isFinite(timeoutMs)
          ? setTimeout(() => {
              this.settle(id);
              reject(new DaemonUnavailableError("timeout", `cortexd did not answer ${method} within ${timeoutMs} ms`));
            }, timeoutMs)
          : undefined;
      this.pending.set(id, { resolve, reject, timer });
      if (this.opts.unrefWhenIdle) this.socket.ref();
      this.socket.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  }

  /** A notification (no reply): the daemon runs it even after we hang up. */
  notify(method: string, params: object): void {
    if (this.closedError) return;
    this.socket.write(JSON.stringify({ jsonrpc: "2.0", method, params }) + "\n");
  }

  /** Closes the connection; calls still pending reject with DaemonUnavailableError("closed"). */
  close(): void {
    this.shutdown(new DaemonUnavailableError("closed", "client closed"));
  }

  get closed(): boolean {
    return this.closedError !== undefined;
  }

  private settle(id: number): Pending | undefined {
    const p = this.pending.get(id);
    if (!p) return undefined;
    this.pending.delete(id);
    if (p.timer) clearTimeout(p.timer);
    if (this.opts.unrefWhenIdle && this.pending.size === 0) this.socket.unref();
    return p;
  }

  private shutdown(err: Error): void {
    if (this.closedError) return;
    this.closedError = err;
    this.socket.destroy();
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(err);
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
      if (this.bufBytes > this.opts.maxResponseBytes) {
        this.shutdown(
          new DaemonUnavailableError("error", `response from cortexd exceeds ${this.opts.maxResponseBytes} bytes`),
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
      const r = res as { id?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };
      const error = r.error && typeof r.error === "object" ? r.error : undefined;
      if (typeof r.id !== "number") {
        if (error) this.lastConnectionError = new RpcError(error.code, error.message, error.data);
        continue;
      }
      const p = this.settle(r.id);
      if (!p) continue;
      if (error) p.reject(new RpcError(error.code, String(error.message), error.data));
      else p.resolve(r.result);
    }
  }
}
