import { createConnection, type Socket } from "node:net";

/**
 * A minimal NDJSON JSON-RPC 2.0 client for the hook path: node:net only, no validation library,
 * so a hook process starts fast. (Long-lived tools use src/client/client.ts.) Timeouts are the
 * caller's: hooks run under one overall deadline.
 */

export class WireError extends Error {
  constructor(
    readonly kind: "unavailable" | "closed" | "rpc",
    message: string,
    readonly code?: number | string,
  ) {
    super(message);
    this.name = "WireError";
  }
}

export interface Wire {
  call<T = unknown>(method: string, params: Record<string, unknown>): Promise<T>;
  /** A notification (no reply): the daemon runs it even after we hang up. */
  notify(method: string, params: Record<string, unknown>): void;
  close(): void;
}

export function connectWire(socketPath: string): Promise<Wire> {
  return new Promise((resolve, reject) => {
    const socket: Socket = createConnection({ path: socketPath });
    const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
    let nextId = 0;
    let buf = "";
    let connected = false;
    const failAll = (err: Error) => {
      for (const p of pending.values()) p.reject(err);
      pending.clear();
    };
    socket.setEncoding("utf8");
    socket.on("error", (err: NodeJS.ErrnoException) => {
      const e = new WireError(
        connected ? "closed" : "unavailable",
        `cortexd unreachable at ${socketPath}: ${err.code ?? err.message}`,
        err.code,
      );
      if (!connected) reject(e);
      failAll(e);
    });
    socket.on("close", () => failAll(new WireError("closed", "cortexd closed the connection")));
    socket.on("data", (chunk: string) => {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf("\n")) !== -1) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        let msg: { id?: unknown; result?: unknown; error?: { code: number; message: string } };
        try {
          msg = JSON.parse(line);
        } catch {
          continue;
        }
        const p = typeof msg.id === "number" ? pending.get(msg.id) : undefined;
        if (!p) continue;
        pending.delete(msg.id as number);
        if (msg.error) p.reject(new WireError("rpc", msg.error.message, msg.error.code));
        else p.resolve(msg.result);
      }
    });
    socket.once("connect", () => {
      connected = true;
      resolve({
        call<T>(method: string, params: Record<string, unknown>): Promise<T> {
          const id = ++nextId;
          return new Promise<T>((res, rej) => {
            pending.set(id, { resolve: res as (v: unknown) => void, reject: rej });
            socket.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
          });
        },
        notify(method, params) {
          socket.write(JSON.stringify({ jsonrpc: "2.0", method, params }) + "\n");
        },
        close() {
          socket.destroy();
        },
      });
    });
  });
}
