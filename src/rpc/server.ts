import { chmodSync, statSync, unlinkSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { JSONRPCServer, createJSONRPCErrorResponse, type JSONRPCID, type JSONRPCRequest, type JSONRPCResponse } from "json-rpc-2.0";
import type { Logger } from "pino";
import type { z } from "zod";
import { ErrorCodes, MethodParams, type MethodName, type MethodResults } from "./protocol.js";
import { SocketPathTooLongError, maxSocketPathBytes } from "./socket-path.js";
import { errorMessage } from "../util/error-message.js";

/**
 * JSON-RPC 2.0 over a Unix socket, one JSON text per line (NDJSON) each way, dispatched by json-rpc-2.0's
 * JSONRPCServer. Params are validated with the zod schemas in protocol.ts before a handler runs.
 *
 * Bounded per connection: a line may not exceed maxRequestBytes (-32005, then the connection is closed),
 * unfinished lines together may not exceed maxBufferedBytes (the largest holder goes), a started line
 * must finish within lineTimeoutMs, at most MAX_INFLIGHT requests run at once (reading
 * pauses beyond that, and while the client is not reading our responses), idle connections close after
 * idleTimeoutMs. At most maxConnections at once: when full, the connection idle the longest (nothing
 * in flight, nothing unread) is closed to make room, so a pile of idle or stalled clients cannot lock
 * a real one out; only when every connection is busy is a new one refused (-32006).
 */

export interface RequestContext {
  connectionId: number;
}

export type MethodHandler<M extends MethodName> = (
  params: z.output<(typeof MethodParams)[M]>,
  ctx: RequestContext,
) => Promise<MethodResults[M]> | MethodResults[M];

export type MethodHandlers = { [M in MethodName]?: MethodHandler<M> };

/** Throw from a handler to answer with this code/message (see ErrorCodes). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

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

/** Requests running at once per connection before we stop reading from it. */
const MAX_INFLIGHT = 16;

interface Conn {
  id: number;
  socket: Socket;
  /** Received bytes not scanned yet (reading is paused while there are any). */
  unscanned: Buffer[];
  /** The current, unfinished line. */
  lineParts: Buffer[];
  lineBytes: number;
  /** Bytes held in lineParts (counted in the server-wide budget). */
  held: number;
  lineTimer: NodeJS.Timeout | undefined;
  inflight: number;
  writeBlocked: boolean;
  /** No more requests are read (oversized line). */
  done: boolean;
  /** The client half-closed: answer what is pending (an unterminated last line too), then end. */
  ended: boolean;
  /** Last time bytes came in or a response went out (performance.now()). */
  lastActive: number;
}

export async function startRpcServer(opts: RpcServerOptions): Promise<RpcServer> {
  const { socketPath, logger } = opts;
  if (Buffer.byteLength(socketPath) > maxSocketPathBytes()) throw new SocketPathTooLongError(socketPath, maxSocketPathBytes());
  const maxBytes = opts.maxRequestBytes ?? 1024 * 1024;
  const idleTimeoutMs = opts.idleTimeoutMs ?? 5 * 60_000;
  const lineTimeoutMs = opts.lineTimeoutMs ?? 10_000;
  const maxConnections = opts.maxConnections ?? 256;
  const maxBuffered = opts.maxBufferedBytes ?? 64 * 1024 * 1024;
  let bufferedTotal = 0;
  const closeGraceMs = opts.closeGraceMs ?? 3000;

  const rpc = createDispatcher(opts.handlers, logger);
  const conns = new Set<Conn>();
  const counters = { requests: 0, errors: 0 };
  let nextConnId = 0;
  let inflightTotal = 0;
  let closing = false;
  let idleWaiters: (() => void)[] = [];

  /** The connection idle the longest, among those with nothing in flight and nothing unread. */
  function longestIdle(): Conn | undefined {
    let best: Conn | undefined;
    for (const c of conns) {
      if (c.inflight > 0 || c.unscanned.length > 0 || c.writeBlocked) continue;
      if (!best || c.lastActive < best.lastActive) best = c;
    }
    return best;
  }

  const server = createServer({ allowHalfOpen: true }, (socket) => {
    if (!closing && conns.size >= maxConnections) {
      const idle = longestIdle();
      if (idle) {
        logger?.debug({ conn: idle.id, connections: conns.size }, "rpc connection limit reached: closing the longest-idle connection");
        conns.delete(idle); // room now; its close event follows
        idle.socket.destroy();
      }
    }
    if (closing || conns.size >= maxConnections) {
      const message = closing ? "cortexd is shutting down" : `too many connections (limit ${maxConnections})`;
      const code = closing ? ErrorCodes.ShuttingDown : ErrorCodes.TooManyConnections;
      logger?.warn({ connections: conns.size }, message);
      sayGoodbye(socket, serialize(createJSONRPCErrorResponse(null, code, message)));
      return;
    }
    const conn: Conn = {
      id: ++nextConnId,
      socket,
      unscanned: [],
      lineParts: [],
      lineBytes: 0,
      held: 0,
      lineTimer: undefined,
      inflight: 0,
      writeBlocked: false,
      done: false,
      ended: false,
      lastActive: performance.now(),
    };
    conns.add(conn);
    logger?.debug({ conn: conn.id }, "rpc connection opened");
    socket.setTimeout(idleTimeoutMs);
    socket.on("timeout", () => {
      if (conn.inflight === 0) {
        logger?.debug({ conn: conn.id }, "rpc connection idle, closing");
        socket.destroy();
      }
    });
    socket.on("error", (err) => logger?.debug({ conn: conn.id, err: err.message }, "rpc connection error"));
    socket.on("close", () => {
      conns.delete(conn);
      clearTimeout(conn.lineTimer);
      conn.unscanned = [];
      dropLine(conn);
      logger?.debug({ conn: conn.id }, "rpc connection closed");
    });
    socket.on("drain", () => {
      conn.writeBlocked = false;
      pump(conn);
    });
    socket.on("data", (chunk: Buffer) => {
      if (conn.done) return; // discarding after a fatal error
      conn.lastActive = performance.now();
      conn.unscanned.push(chunk);
      pump(conn);
    });
    socket.on("end", () => {
      conn.ended = true;
      pump(conn);
    });
  });

  /** Extracts complete lines while the connection has request slots free; pauses reading otherwise. */
  function pump(conn: Conn): void {
    while (!conn.done && conn.inflight < MAX_INFLIGHT && conn.unscanned.length > 0) {
      const chunk = conn.unscanned[0]!;
      const nl = chunk.indexOf(10);
      if (nl === -1) {
        conn.unscanned.shift();
        if (!appendPartial(conn, chunk)) return;
        continue;
      }
      const piece = chunk.subarray(0, nl);
      if (nl + 1 < chunk.length) conn.unscanned[0] = chunk.subarray(nl + 1);
      else conn.unscanned.shift();
      const total = conn.lineBytes + piece.length;
      if (total > maxBytes) return tooLarge(conn, total);
      const line = conn.lineBytes === 0 ? piece : Buffer.concat([...conn.lineParts, piece], total);
      dropLine(conn);
      clearTimeout(conn.lineTimer); // the next line gets its own deadline
      conn.lineTimer = undefined;
      dispatch(conn, line);
    }
    if (conn.done) return;
    if (conn.ended && conn.unscanned.length === 0) {
      if (conn.lineBytes > 0) {
        const line = Buffer.concat(conn.lineParts, conn.lineBytes);
        dropLine(conn);
        dispatch(conn, line);
      }
      clearTimeout(conn.lineTimer);
      conn.lineTimer = undefined;
      if (conn.inflight === 0 && !conn.socket.destroyed) conn.socket.end();
      return;
    }
    // A line timer runs only while we wait on the client for the rest of a line.
    if (conn.lineBytes > 0 && conn.unscanned.length === 0) {
      conn.lineTimer ??= setTimeout(() => {
        logger?.debug({ conn: conn.id }, "rpc request line not finished in time, closing");
        conn.socket.destroy();
      }, lineTimeoutMs);
    } else if (conn.lineTimer) {
      // Unread data is waiting on us (we're busy), not on the client.
      clearTimeout(conn.lineTimer);
      conn.lineTimer = undefined;
    }
    if (conn.unscanned.length > 0 || conn.writeBlocked) conn.socket.pause();
    else conn.socket.resume();
  }

  function appendPartial(conn: Conn, part: Buffer): boolean {
    conn.lineBytes += part.length;
    if (conn.lineBytes > maxBytes) {
      tooLarge(conn, conn.lineBytes);
      return false;
    }
    conn.lineParts.push(Buffer.from(part)); // copy: don't pin the whole read buffer for a short tail
    conn.held += part.length;
    bufferedTotal += part.length;
    if (bufferedTotal > maxBuffered) {
      // Too much unfinished data server-wide: the connection holding the most goes.
      let hog = conn;
      for (const c of conns) if (c.held > hog.held) hog = c;
      logger?.warn({ conn: hog.id, bytes: hog.held, total: bufferedTotal, limit: maxBuffered }, "rpc unfinished requests over budget, closing the largest");
      tooLarge(hog, hog.lineBytes, `unfinished request data over the server's budget (${bufferedTotal} bytes > ${maxBuffered}); this connection held the most`);
      return hog !== conn;
    }
    return true;
  }

  /** Forgets the current unfinished line (and its bytes in the budget). */
  function dropLine(conn: Conn): void {
    bufferedTotal -= conn.held;
    conn.held = 0;
    conn.lineParts = [];
    conn.lineBytes = 0;
  }

  function tooLarge(conn: Conn, bytes: number, why?: string): void {
    counters.requests++;
    counters.errors++;
    if (!why) logger?.warn({ conn: conn.id, bytes, limit: maxBytes }, "rpc request too large, closing connection");
    conn.done = true;
    conn.unscanned = [];
    dropLine(conn);
    clearTimeout(conn.lineTimer);
    const msg = `request too large (${why ?? `${bytes} bytes > ${maxBytes}`})`;
    sayGoodbye(conn.socket, serialize(createJSONRPCErrorResponse(null, ErrorCodes.RequestTooLarge, msg)));
  }

  function dispatch(conn: Conn, line: Buffer): void {
    const text = line.toString("utf8").trim();
    if (text === "") return;
    conn.inflight++;
    inflightTotal++;
    const started = Date.now();
    handleText(text, { connectionId: conn.id })
      .then((out) => {
        conn.lastActive = performance.now();
        if (out !== null && !conn.socket.destroyed && conn.socket.writable) {
          if (!conn.socket.write(out + "\n")) conn.writeBlocked = true;
        }
        logger?.debug({ conn: conn.id, ms: Date.now() - started }, "rpc request done");
      })
      .catch((err: unknown) => logger?.error({ conn: conn.id, err: errorMessage(err, "internal error") }, "rpc dispatch failed"))
      .finally(() => {
        conn.inflight--;
        inflightTotal--;
        if (inflightTotal === 0) {
          for (const w of idleWaiters) w();
          idleWaiters = [];
        }
        if (!conn.socket.destroyed) pump(conn);
      });
  }

  /** One line → the serialized response (object or batch array), or null for nothing to send. */
  async function handleText(text: string, ctx: RequestContext): Promise<string | null> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      counters.requests++;
      counters.errors++;
      return serialize(createJSONRPCErrorResponse(null, ErrorCodes.ParseError, "parse error: invalid JSON"));
    }
    if (!Array.isArray(parsed)) {
      const res = await handleOne(parsed, ctx);
      return res && serialize(res);
    }
    if (parsed.length === 0) {
      counters.errors++;
      return serialize(createJSONRPCErrorResponse(null, ErrorCodes.InvalidRequest, "invalid request: empty batch"));
    }
    const results = await Promise.all(parsed.map((r) => handleOne(r, ctx)));
    const out = results.filter((r): r is JSONRPCResponse => r !== null);
    return out.length ? `[${out.map(serialize).join(",")}]` : null;
  }

  async function handleOne(req: unknown, ctx: RequestContext): Promise<JSONRPCResponse | null> {
    counters.requests++;
    const res = await handleOneInner(req, ctx);
    if (res?.error) counters.errors++;
    return res;
  }

  async function handleOneInner(req: unknown, ctx: RequestContext): Promise<JSONRPCResponse | null> {
    const invalid = (id: JSONRPCID, why: string) => createJSONRPCErrorResponse(id, ErrorCodes.InvalidRequest, `invalid request: ${why}`);
    if (typeof req !== "object" || req === null || Array.isArray(req)) return invalid(null, "expected an object");
    const r = req as Record<string, unknown>;
    if (r.id !== undefined && !isId(r.id)) return invalid(null, "id must be a string, a number or null");
    const id = (r.id ?? null) as JSONRPCID;
    if (r.jsonrpc !== "2.0") return invalid(id, 'jsonrpc must be "2.0"');
    if (typeof r.method !== "string") return invalid(id, "method must be a string");
    if ("result" in r || "error" in r) return invalid(id, "a request has no result or error");
    if (closing) return r.id === undefined ? null : createJSONRPCErrorResponse(id, ErrorCodes.ShuttingDown, "cortexd is shutting down");
    return rpc.receive(r as unknown as JSONRPCRequest, ctx);
  }

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off("listening", onListening);
      if (err.code === "EADDRINUSE") {
        reject(new Error(`socket ${socketPath} already exists (take the instance lock first, which clears a stale one)`));
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
    stats: () => ({ ...counters }),
  };
}

/** Builds the json-rpc-2.0 dispatcher: one method per handler, params validated against MethodParams. */
function createDispatcher(handlers: MethodHandlers, logger: Logger | undefined): JSONRPCServer<RequestContext> {
  const rpc = new JSONRPCServer<RequestContext>({ errorListener: () => {} });
  for (const name of Object.keys(MethodParams) as MethodName[]) {
    const handler = handlers[name] as MethodHandler<MethodName> | undefined;
    if (!handler) continue;
    const schema = MethodParams[name] as z.ZodType;
    rpc.addMethod(name, async (params: unknown, ctx: RequestContext) => {
      const parsed = schema.safeParse(params ?? {});
      if (!parsed.success) {
        const issues = parsed.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: issueText(i) }));
        const text = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
        throw new RpcError(ErrorCodes.InvalidParams, `invalid params: ${text}`, { issues });
      }
      logger?.debug({ conn: ctx.connectionId, method: name }, "rpc call");
      return handler(parsed.data as never, ctx);
    });
  }
  rpc.mapErrorToJSONRPCErrorResponse = (id, err: unknown) => {
    if (err instanceof RpcError) return createJSONRPCErrorResponse(id, err.code, err.message, err.data);
    logger?.error({ err: errorMessage(err, "internal error"), stack: err instanceof Error ? err.stack : undefined }, "rpc handler failed");
    return createJSONRPCErrorResponse(id, ErrorCodes.InternalError, errorMessage(err, "internal error"));
  };
  return rpc;
}

function issueText(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") {
    return `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}`;
  }
  return issue.message.replace(/^Invalid input: /, "");
}

function serialize(res: JSONRPCResponse): string {
  try {
    return JSON.stringify(res);
  } catch (err) {
    return JSON.stringify(
      createJSONRPCErrorResponse(res.id, ErrorCodes.InternalError, `result is not serializable: ${errorMessage(err, "internal error")}`),
    );
  }
}

/** Writes a last error line, then closes; incoming data is discarded meanwhile so the peer's writes finish. */
function sayGoodbye(socket: Socket, line: string): void {
  socket.on("error", () => {});
  socket.end(line + "\n");
  socket.resume();
  setTimeout(() => socket.destroy(), 2000).unref();
}

function isId(v: unknown): v is JSONRPCID {
  return v === null || typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
}

