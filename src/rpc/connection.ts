import type { Socket } from "node:net";
import { createJSONRPCErrorResponse, type JSONRPCResponse, type JSONRPCServer } from "json-rpc-2.0";
import type { Logger } from "pino";
import { ErrorCodes } from "./protocol.js";
import { parseLine, serializeCapped, shuttingDown, type RequestContext, type WorkItem } from "./dispatch.js";
import type { FairQueue, Lane } from "./fair-queue.js";
import { LineFramer, type LineBudget } from "./framing.js";
import { errorMessage } from "../util/error-message.js";

/**
 * One client connection: reads request lines (framing.ts), turns each into work items (dispatch.ts)
 * queued on the server's fair queue, writes the responses. Its budget: at most maxInflight requests
 * (batch items counted one by one) queued or running before reading pauses; reading also pauses, and
 * no further request of it starts, while its unsent responses exceed maxUnsentBytes (a client that
 * does not read cannot make us buffer without bound); when it closes, its requests that have not
 * started are dropped and the running ones see their abort signal.
 */

export interface ConnectionLimits {
  maxLineBytes: number;
  lineTimeoutMs: number;
  idleTimeoutMs: number;
  maxInflight: number;
  maxBatch: number;
  maxResponseBytes: number;
  maxUnsentBytes: number;
}

/** What a connection needs from its server. */
export interface ConnectionHost {
  readonly logger: Logger | undefined;
  readonly limits: ConnectionLimits;
  readonly budget: LineBudget;
  readonly queue: FairQueue;
  readonly rpc: JSONRPCServer<RequestContext>;
  readonly counters: { requests: number; errors: number };
  closing(): boolean;
  /** Unfinished lines of all connections are over the shared budget: the largest holder goes. */
  overBudget(): void;
  workStarted(): void;
  workDone(): void;
  closed(conn: Connection): void;
}

/** One request line's items and their answers (a batch is answered as one array, once all are done). */
interface Job {
  batch: boolean;
  answers: (string | null)[];
  left: number;
  /** Bytes of the batch's answers so far (checked against maxResponseBytes). */
  bytes: number;
}

export class Connection {
  /** Last time bytes came in or a response went out (performance.now()). */
  lastActive = performance.now();
  /** No more requests are read (oversized line). */
  done = false;
  /** The client half-closed: answer what is pending (an unterminated last line too), then end. */
  private ended = false;
  private inflight = 0;
  private lineTimer: NodeJS.Timeout | undefined;
  private readonly framer: LineFramer;
  private readonly lane: Lane;
  private readonly abort = new AbortController();
  private readonly ctx: RequestContext;

  constructor(
    readonly id: number,
    readonly socket: Socket,
    private readonly host: ConnectionHost,
  ) {
    this.framer = new LineFramer(host.limits.maxLineBytes, host.budget);
    this.lane = host.queue.lane();
    this.ctx = { connectionId: id, signal: this.abort.signal };
    const log = host.logger;
    socket.setTimeout(host.limits.idleTimeoutMs);
    socket.on("timeout", () => {
      if (this.inflight === 0) {
        log?.debug({ conn: id }, "rpc connection idle, closing");
        socket.destroy();
      }
    });
    socket.on("error", (err) => log?.debug({ conn: id, err: err.message }, "rpc connection error"));
    socket.on("close", () => {
      clearTimeout(this.lineTimer);
      this.framer.clear();
      this.host.queue.close(this.lane); // requests not started are dropped
      this.abort.abort();
      host.closed(this);
      log?.debug({ conn: id }, "rpc connection closed");
    });
    socket.on("drain", () => this.pump());
    socket.on("data", (chunk: Buffer) => {
      if (this.done) return; // discarding after a fatal error
      this.lastActive = performance.now();
      this.framer.push(chunk);
      this.pump();
    });
    socket.on("end", () => {
      this.ended = true;
      this.pump();
    });
  }

  /** Nothing in flight, nothing unread, nothing unsent: may be closed to make room. */
  get idle(): boolean {
    return this.inflight === 0 && !this.framer.hasUnscanned && !this.writeBlocked;
  }

  /** Bytes of unfinished request lines held (in the server-wide budget). */
  get heldBytes(): number {
    return this.framer.held;
  }

  get lineBytes(): number {
    return this.framer.lineBytes;
  }

  private get writeBlocked(): boolean {
    return this.socket.writableLength > this.host.limits.maxUnsentBytes;
  }

  /** Extracts complete lines while the connection has request slots free; pauses reading otherwise. */
  pump(): void {
    const { limits } = this.host;
    const blocked = this.writeBlocked;
    if (this.lane.held !== blocked) {
      this.lane.held = blocked;
      if (!blocked) this.host.queue.pump();
    }
    while (!this.done && !blocked && this.inflight < limits.maxInflight && this.framer.hasUnscanned) {
      const next = this.framer.next();
      if (next === null) {
        if (this.host.budget.over) {
          this.host.overBudget();
          if (this.done || this.socket.destroyed) return;
        }
        continue;
      }
      if ("tooLarge" in next) return this.tooLarge(next.tooLarge);
      clearTimeout(this.lineTimer); // the next line gets its own deadline
      this.lineTimer = undefined;
      this.dispatch(next.line);
    }
    if (this.done) return;
    if (this.ended && !this.framer.hasUnscanned) {
      const rest = this.framer.rest();
      if (rest) this.dispatch(rest);
      clearTimeout(this.lineTimer);
      this.lineTimer = undefined;
      if (this.inflight === 0 && !this.socket.destroyed) this.socket.end();
      return;
    }
    // A line timer runs only while we wait on the client for the rest of a line.
    if (this.framer.midLine && !this.framer.hasUnscanned) {
      this.lineTimer ??= setTimeout(() => {
        this.host.logger?.debug({ conn: this.id }, "rpc request line not finished in time, closing");
        this.socket.destroy();
      }, limits.lineTimeoutMs);
    } else if (this.lineTimer) {
      // Unread data is waiting on us (we're busy), not on the client.
      clearTimeout(this.lineTimer);
      this.lineTimer = undefined;
    }
    if (this.framer.hasUnscanned || blocked) this.socket.pause();
    else this.socket.resume();
  }

  /** A last -32005 error, then the connection is closed. */
  tooLarge(bytes: number, why?: string): void {
    const { counters, limits, logger } = this.host;
    counters.requests++;
    counters.errors++;
    if (!why)
      logger?.warn({ conn: this.id, bytes, limit: limits.maxLineBytes }, "rpc request too large, closing connection");
    this.done = true;
    this.framer.clear();
    clearTimeout(this.lineTimer);
    const msg = `request too large (${why ?? `${bytes} bytes > ${limits.maxLineBytes}`})`;
    sayGoodbye(this.socket, JSON.stringify(createJSONRPCErrorResponse(null, ErrorCodes.RequestTooLarge, msg)));
  }

  private dispatch(line: Buffer): void {
    const text = line.toString("utf8").trim();
    if (text === "") return;
    const { counters, limits } = this.host;
    const parsed = parseLine(text, limits.maxBatch);
    if (parsed.kind === "reply") {
      if (
        parsed.reply.error?.code !== ErrorCodes.InvalidRequest ||
        parsed.reply.error.message.includes("batch too large")
      )
        counters.requests++;
      counters.errors++;
      this.send(JSON.stringify(parsed.reply));
      return;
    }
    const job: Job = {
      batch: parsed.batch,
      answers: new Array<string | null>(parsed.items.length).fill(null),
      left: parsed.items.length,
      bytes: 0,
    };
    parsed.items.forEach((item, i) => this.submit(job, i, item));
  }

  private submit(job: Job, i: number, item: WorkItem): void {
    const { counters, queue } = this.host;
    counters.requests++;
    if (item.reply || this.host.closing()) return this.answer(job, i, item.reply ?? shuttingDown(item));
    this.inflight++;
    this.host.workStarted();
    const started = performance.now();
    const finish = () => {
      this.inflight--;
      this.host.workDone();
      if (!this.socket.destroyed) this.pump();
    };
    queue.submit(
      this.lane,
      {
        run: async () => {
          try {
            let res: JSONRPCResponse | null;
            // What the handler does once its answer is written (RequestContext.afterAnswer).
            const after: (() => void)[] = [];
            if (this.host.closing()) res = shuttingDown(item);
            else if (job.batch && job.bytes > this.host.limits.maxResponseBytes) res = batchFull(item);
            else res = await this.host.rpc.receive(item.request!, { ...this.ctx, afterAnswer: (w) => after.push(w) });
            this.lastActive = performance.now();
            this.answer(job, i, res);
            for (const work of after) {
              try {
                work();
              } catch (err) {
                this.host.logger?.error(
                  { conn: this.id, err: errorMessage(err, "internal error") },
                  "rpc after-answer work failed",
                );
              }
            }
            this.host.logger?.debug({ conn: this.id, ms: Math.round(performance.now() - started) }, "rpc request done");
          } catch (err) {
            this.host.logger?.error({ conn: this.id, err: errorMessage(err, "internal error") }, "rpc dispatch failed");
            this.answer(
              job,
              i,
              item.notification
                ? null
                : createJSONRPCErrorResponse(
                    item.request?.id ?? null,
                    ErrorCodes.InternalError,
                    errorMessage(err, "internal error"),
                  ),
            );
          } finally {
            finish();
          }
        },
        drop: finish,
      },
      item.light,
    );
  }

  /** Records one item's answer; writes a single response at once, a batch once all its items are answered. */
  private answer(job: Job, i: number, res: JSONRPCResponse | null): void {
    const { counters, limits } = this.host;
    if (res?.error) counters.errors++;
    job.left--;
    if (res) {
      if (!job.batch) this.send(serializeCapped(res, limits.maxResponseBytes));
      else {
        const text = serializeCapped(res, limits.maxResponseBytes, Math.max(0, limits.maxResponseBytes - job.bytes));
        job.answers[i] = text;
        job.bytes += text.length + 1;
      }
    }
    if (job.batch && job.left === 0) {
      const out = job.answers.filter((a): a is string => a !== null);
      job.answers = [];
      if (out.length) this.send(`[${out.join(",")}]`);
    }
  }

  private send(text: string): void {
    if (this.socket.destroyed || !this.socket.writable) return;
    this.socket.write(text + "\n");
  }
}

/** The answer for a batch item once the batch's answers have passed the response size limit (it is not run). */
function batchFull(item: WorkItem): JSONRPCResponse | null {
  if (item.notification) return null;
  return createJSONRPCErrorResponse(
    item.request?.id ?? null,
    ErrorCodes.ResponseTooLarge,
    "not run: the batch's responses passed the response size limit; send fewer requests per batch",
  );
}

/** Writes a last error line, then closes; incoming data is discarded meanwhile so the peer's writes finish. */
export function sayGoodbye(socket: Socket, line: string): void {
  socket.on("error", () => {});
  socket.end(line + "\n");
  socket.resume();
  setTimeout(() => socket.destroy(), 2000).unref();
}
