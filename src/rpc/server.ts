import { chmodSync, statSync, unlinkSync } from "node:fs";
import { createServer } from "node:net";
import { createJSONRPCErrorResponse } from "json-rpc-2.0";
import type { Logger } from "pino";
import { ErrorCodes } from "./protocol.js";
import { SocketPathTooLongError, maxSocketPathBytes } from "./socket-path.js";
import { Connection, sayGoodbye, type ConnectionHost } from "./connection.js";
import { createDispatcher, type MethodHandlers } from "./dispatch.js";
import { FairQueue } from "./fair-queue.js";
import { LineBudget } from "./framing.js";

export { RpcError, type MethodHandler, type MethodHandlers, type RequestContext } from "./dispatch.js";

/**
 * JSON-RPC 2.0 over a Unix socket, one JSON text per line (NDJSON) each way: the listener, the
 * connection limit and shutdown. Framing is in framing.ts, a connection's reading, budget and
 * writing in connection.ts, parsing and dispatch in dispatch.ts, scheduling in fair-queue.ts.
 *
 * Bounded: a line may not exceed maxRequestBytes (-32005, then the connection is closed), unfinished
 * lines together may not exceed maxBufferedBytes (the largest holder goes), a started line must finish
 * within lineTimeoutMs; a batch has at most maxBatch requests (-32600 naming the cap), and each of its
 * items counts against the connection's in-flight limit; a response (a batch's together) may not pass
 * maxResponseBytes (-32007); at most maxRunning requests run at once, taken fairly across connections;
 * idle connections close after idleTimeoutMs. At most maxConnections at once: when full, the
 * connection idle the longest (nothing in flight, nothing unread) is closed to make room, so a pile
 * of idle or stalled clients cannot lock a real one out; only when every connection is busy is a new
 * one refused (-32006).
 */

export interface RpcServerOptions {
  socketPath: string;
  handlers: MethodHandlers;
  logger?: Logger;
  /** Longest accepted request line, in bytes. Default 1 MiB. */
  maxRequestBytes?: number;
  /** Close connections with no traffic and no request in flight after this long. Default 5 min. */
  idleTimeoutMs?: number;
  /** Close a connection whose started line is not finished within this long. Default 10 s. */
  lineTimeoutMs?: number;
  /** Connections at once (beyond it the longest-idle one is closed, or, all busy, the new one refused). Default 256. */
  maxConnections?: number;
  /**
   * Bytes of unfinished request lines held across all connections; beyond it the connection holding
   * the most gets -32005 and is closed. Default 64 MiB (so 256 connections × 1 MiB cannot add up).
   */
  maxBufferedBytes?: number;
  /** close() waits this long for in-flight requests before dropping connections. Default 3 s. */
  closeGraceMs?: number;
  /** Requests per batch. Default 1,000. */
  maxBatch?: number;
  /** Longest response line (a batch's responses together), in bytes. Default 16 MiB. */
  maxResponseBytes?: number;
  /** Requests running at once across all connections (constant-cost ones like ping excepted). Default 4. */
  maxRunning?: number;
  /** A request's budget (deadlines.ts; long methods get more). Default 60 s. */
  deadlineMs?: number;
}

export interface RpcServer {
  readonly socketPath: string;
  /**
   * Stops accepting, answers new requests with -32004, waits for in-flight ones (up to closeGraceMs),
   * drops connections and unlinks the socket file. Idempotent. Don't await it inside a handler
   * (it would wait for that very request): schedule it, e.g. `setImmediate(() => server.close())`.
   */
  close(): Promise<void>;
  connections(): number;
  stats(): { requests: number; errors: number };
}

/** Requests queued or running per connection before we stop reading from it. */
const MAX_INFLIGHT = 16;
/** Unsent response bytes per connection beyond which it is not read and none of its requests start. */
const MAX_UNSENT_BYTES = 1024 * 1024;

export async function startRpcServer(opts: RpcServerOptions): Promise<RpcServer> {
  const { socketPath, logger } = opts;
  if (Buffer.byteLength(socketPath) > maxSocketPathBytes())
    throw new SocketPathTooLongError(socketPath, maxSocketPathBytes());
  const maxConnections = opts.maxConnections ?? 256;
  const closeGraceMs = opts.closeGraceMs ?? 3000;
  const conns = new Set<Connection>();
  let nextConnId = 0;
  let inflightTotal = 0;
  let closing = false;
  let idleWaiters: (() => void)[] = [];

  const host: ConnectionHost = {
    logger,
    limits: {
      maxLineBytes: opts.maxRequestBytes ?? 1024 * 1024,
      lineTimeoutMs: opts.lineTimeoutMs ?? 10_000,
      idleTimeoutMs: opts.idleTimeoutMs ?? 5 * 60_000,
      maxInflight: MAX_INFLIGHT,
      maxBatch: opts.maxBatch ?? 1000,
      maxResponseBytes: opts.maxResponseBytes ?? 16 * 1024 * 1024,
      maxUnsentBytes: MAX_UNSENT_BYTES,
    },
    budget: new LineBudget(opts.maxBufferedBytes ?? 64 * 1024 * 1024),
    queue: new FairQueue(opts.maxRunning ?? 4),
    rpc: createDispatcher(opts.handlers, logger, opts.deadlineMs),
    counters: { requests: 0, errors: 0 },
    closing: () => closing,
    overBudget() {
      // Too much unfinished data server-wide: the connection holding the most goes.
      let hog: Connection | undefined;
      for (const c of conns) if (!hog || c.heldBytes > hog.heldBytes) hog = c;
      if (!hog) return;
      const { total, max } = host.budget;
      logger?.warn(
        { conn: hog.id, bytes: hog.heldBytes, total, limit: max },
        "rpc unfinished requests over budget, closing the largest",
      );
      hog.tooLarge(
        hog.lineBytes,
        `unfinished request data over the server's budget (${total} bytes > ${max}); this connection held the most`,
      );
    },
    workStarted: () => void inflightTotal++,
    workDone() {
      inflightTotal--;
      if (inflightTotal === 0) {
        for (const w of idleWaiters) w();
        idleWaiters = [];
      }
    },
    closed: (c) => void conns.delete(c),
  };

  /** The connection idle the longest, among those with nothing in flight and nothing unread. */
  function longestIdle(): Connection | undefined {
    let best: Connection | undefined;
    for (const c of conns) {
      if (!c.idle) continue;
      if (!best || c.lastActive < best.lastActive) best = c;
    }
    return best;
  }

  const server = createServer({ allowHalfOpen: true }, (socket) => {
    if (!closing && conns.size >= maxConnections) {
      const idle = longestIdle();
      if (idle) {
        logger?.debug(
          { conn: idle.id, connections: conns.size },
          "rpc connection limit reached: closing the longest-idle connection",
        );
        conns.delete(idle); // room now; its close event follows
        idle.socket.destroy();
      }
    }
    if (closing || conns.size >= maxConnections) {
      const message = closing ? "cortexd is shutting down" : `too many connections (limit ${maxConnections})`;
      const code = closing ? ErrorCodes.ShuttingDown : ErrorCodes.TooManyConnections;
      logger?.warn({ connections: conns.size }, message);
      sayGoodbye(socket, JSON.stringify(createJSONRPCErrorResponse(null, code, message)));
      return;
    }
    const conn = new Connection(++nextConnId, socket, host);
    conns.add(conn);
    logger?.debug({ conn: conn.id }, "rpc connection opened");
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off("listening", onListening);
      if (err.code === "EADDRINUSE") {
        reject(
          new Error(`socket ${socketPath} already exists (take the instance lock first, which clears a stale one)`),
        );
      } else reject(err);
    };
    const onListening = () => {
      server.off("error", onError);
      resolve();
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(socketPath);
  });
  // The directory is 0700 already; this also keeps the socket private if someone loosens it.
  chmodSync(socketPath, 0o600);
  const ino = statSync(socketPath).ino;
  server.on("error", (err) => logger?.error({ err: err.message }, "rpc server error"));
  logger?.info({ socketPath }, "rpc server listening");

  let closed: Promise<void> | undefined;
  async function doClose(): Promise<void> {
    closing = true;
    const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
    if (inflightTotal > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, closeGraceMs);
        idleWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    for (const c of conns) c.socket.destroy();
    await serverClosed;
    try {
      // Only our own socket file: a successor may already have bound a new one at this path.
      if (statSync(socketPath).ino === ino) unlinkSync(socketPath);
    } catch {
      // already gone
    }
    logger?.info({ socketPath }, "rpc server closed");
  }

  return {
    socketPath,
    close: () => (closed ??= doClose()),
    connections: () => conns.size,
    stats: () => ({ ...host.counters }),
  };
}
