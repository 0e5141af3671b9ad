import {
  JSONRPCServer,
  createJSONRPCErrorResponse,
  type JSONRPCID,
  type JSONRPCRequest,
  type JSONRPCResponse,
} from "json-rpc-2.0";
import type { Logger } from "pino";
import type { z } from "zod";
import { ErrorCodes, MethodParams, type MethodName, type MethodResults } from "./protocol.js";
import { errorMessage } from "../util/error-message.js";
import { unusableFileIn } from "../util/unusable-file.js";
import { DeadlineError, deadlineFor, withDeadline } from "./deadlines.js";
import { RpcError } from "./rpc-error.js";

export { RpcError };

/**
 * From one request line to its work items and back: envelope checks (-32600), batch cap, the
 * json-rpc-2.0 dispatcher with zod-validated params (-32602 naming the field), and serialising a
 * response under the response size cap (-32007, never a silent drop).
 */

export interface RequestContext {
  connectionId: number;
  /** Aborted when the client's connection closes (or the server stops): long handlers may stop early. */
  signal: AbortSignal;
  /**
   * Runs work once this request's answer is written to the client (a record of what was answered,
   * like the audit line): the answer does not wait for it. Absent (a handler called directly), the
   * handler runs the work at once (`afterAnswer`).
   */
  afterAnswer?: (work: () => void) => void;
}

/** Work a handler does after its answer (RequestContext.afterAnswer), or at once when no connection answers it. */
export function afterAnswer(ctx: RequestContext | undefined, work: () => void): void {
  if (ctx?.afterAnswer) ctx.afterAnswer(work);
  else work();
}

export type MethodHandler<M extends MethodName> = (
  params: z.output<(typeof MethodParams)[M]>,
  ctx: RequestContext,
) => Promise<MethodResults[M]> | MethodResults[M];

export type MethodHandlers = { [M in MethodName]?: MethodHandler<M> };

/** Methods of constant, tiny cost: run at once, never queued behind other clients' work. */
const LIGHT_METHODS: ReadonlySet<string> = new Set(["daemon.ping", "daemon.shutdown"]);

/** One request of a line (a batch has several). `reply` is set when it was answered without running. */
export interface WorkItem {
  request?: JSONRPCRequest;
  reply?: JSONRPCResponse;
  /** A notification: run, but nothing is sent back. */
  notification: boolean;
  light: boolean;
}

export type ParsedLine =
  { kind: "reply"; reply: JSONRPCResponse } | { kind: "work"; batch: boolean; items: WorkItem[] };

/** Parses one request line (JSON text) into work items, or the error that answers the whole line. */
export function parseLine(text: string, maxBatch: number): ParsedLine {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {
      kind: "reply",
      reply: createJSONRPCErrorResponse(null, ErrorCodes.ParseError, "parse error: invalid JSON"),
    };
  }
  if (!Array.isArray(parsed)) return { kind: "work", batch: false, items: [checkEnvelope(parsed)] };
  if (parsed.length === 0)
    return {
      kind: "reply",
      reply: createJSONRPCErrorResponse(null, ErrorCodes.InvalidRequest, "invalid request: empty batch"),
    };
  if (parsed.length > maxBatch) {
    return {
      kind: "reply",
      reply: createJSONRPCErrorResponse(
        null,
        ErrorCodes.InvalidRequest,
        `invalid request: batch too large (${parsed.length} requests > ${maxBatch}); send at most ${maxBatch} requests per batch`,
      ),
    };
  }
  return { kind: "work", batch: true, items: parsed.map(checkEnvelope) };
}

function checkEnvelope(req: unknown): WorkItem {
  const invalid = (id: JSONRPCID, why: string): WorkItem => ({
    reply: createJSONRPCErrorResponse(id, ErrorCodes.InvalidRequest, `invalid request: ${why}`),
    notification: false,
    light: true,
  });
  if (typeof req !== "object" || req === null || Array.isArray(req)) return invalid(null, "expected an object");
  const r = req as Record<string, unknown>;
  if (r.id !== undefined && !isId(r.id)) return invalid(null, "id must be a string, a number or null");
  const id = (r.id ?? null) as JSONRPCID;
  if (r.jsonrpc !== "2.0") return invalid(id, 'jsonrpc must be "2.0"');
  if (typeof r.method !== "string") return invalid(id, "method must be a string");
  if ("result" in r || "error" in r) return invalid(id, "a request has no result or error");
  return {
    request: r as unknown as JSONRPCRequest,
    notification: r.id === undefined,
    light: LIGHT_METHODS.has(r.method),
  };
}

/** The answer to a request that arrives (or would start) while the server shuts down. */
export function shuttingDown(item: WorkItem): JSONRPCResponse | null {
  if (item.notification) return null;
  return createJSONRPCErrorResponse(item.request?.id ?? null, ErrorCodes.ShuttingDown, "cortexd is shutting down");
}

/** Builds the json-rpc-2.0 dispatcher: one method per handler, params validated against MethodParams. */
export function createDispatcher(
  handlers: MethodHandlers,
  logger: Logger | undefined,
  deadlineMs?: number,
): JSONRPCServer<RequestContext> {
  const rpc = new JSONRPCServer<RequestContext>({ errorListener: () => {} });
  for (const name of Object.keys(MethodParams) as MethodName[]) {
    if (!Object.hasOwn(handlers, name)) continue;
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
      if (ctx.signal.aborted) throw new RpcError(ErrorCodes.ShuttingDown, "cancelled: the connection closed");
      logger?.debug({ conn: ctx.connectionId, method: name }, "rpc call");
      try {
        return await withDeadline(name, deadlineFor(name, deadlineMs), ctx.signal, (signal) =>
          handler(parsed.data as never, { ...ctx, signal }),
        );
      } catch (e) {
        if (!(e instanceof DeadlineError)) throw e;
        logger?.warn({ conn: ctx.connectionId, method: name }, e.message);
        throw new RpcError(e.code, e.message);
      }
    });
  }
  rpc.mapErrorToJSONRPCErrorResponse = (id, err: unknown) => {
    if (err instanceof RpcError) return createJSONRPCErrorResponse(id, err.code, err.message, err.data);
    const unusable = unusableFileIn(err);
    if (unusable)
      return createJSONRPCErrorResponse(id, ErrorCodes.UnusableFile, errorMessage(err), { path: unusable.path });
    logger?.error(
      { err: errorMessage(err, "internal error"), stack: err instanceof Error ? err.stack : undefined },
      "rpc handler failed",
    );
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

/**
 * One response as JSON text, at most maxBytes long (`budget` lowers it, for the rest of a batch):
 * a larger (or unserialisable) result is replaced by an error with the same id saying what to do.
 */
export function serializeCapped(res: JSONRPCResponse, maxBytes: number, budget = maxBytes): string {
  let text: string;
  try {
    text = JSON.stringify(res);
  } catch (err) {
    return JSON.stringify(
      createJSONRPCErrorResponse(
        res.id,
        ErrorCodes.InternalError,
        `result is not serializable: ${errorMessage(err, "internal error")}`,
      ),
    );
  }
  // Characters ≤ bytes ≤ 3 × characters (UTF-16 → UTF-8): count bytes only when it could matter.
  const bytes = text.length * 3 <= budget ? text.length : Buffer.byteLength(text);
  if (bytes <= budget) return text;
  const why =
    budget < maxBytes
      ? `the batch's responses would pass the response size limit (${maxBytes} bytes); send fewer requests per batch`
      : `response too large (${bytes} bytes > ${maxBytes}); ask for less (a smaller limit, fewer lines)`;
  return JSON.stringify(createJSONRPCErrorResponse(res.id, ErrorCodes.ResponseTooLarge, why));
}

function isId(v: unknown): v is JSONRPCID {
  return v === null || typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
}
