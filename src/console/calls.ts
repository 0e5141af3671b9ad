import { MethodParams, type MethodName, type MethodResults, type ParamsOf } from "../rpc/protocol.js";
import { RpcError, type MethodHandlers } from "../rpc/server.js";

/**
 * The socket API's methods the console may call — the same handlers, the same parameter schemas,
 * nothing wider. Every read goes out in the local user's private scope (what a local socket client
 * reads by default), marked `client: "console"` and left out of the audit log (the console is the
 * user looking at their own memory, not a host being given it).
 */
export const CONSOLE_METHODS = [
  "cortex.status",
  "index.history",
  "memory.search",
  "memory.recall",
  "memory.get",
  "audit.tail",
  "consolidate.report",
  "promote.list",
  "promote.apply",
] as const satisfies readonly MethodName[];

export type ConsoleMethod = (typeof CONSOLE_METHODS)[number];

export type ConsoleCall = <M extends ConsoleMethod>(
  method: M,
  params: ParamsOf<M>,
  signal?: AbortSignal,
) => Promise<MethodResults[M]>;

/** A refused or failed call, with the HTTP status the console answers it with. */
export class ConsoleCallError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type AnyHandler = (params: unknown, ctx: { connectionId: number; signal: AbortSignal }) => unknown;

/** Calls a handler as the socket server would: params validated against the method's schema first. */
export function consoleCaller(handlers: MethodHandlers): ConsoleCall {
  return (async (method: ConsoleMethod, params: unknown, signal?: AbortSignal) => {
    const handler = handlers[method] as AnyHandler | undefined;
    if (!handler) throw new ConsoleCallError(404, `method ${method} is not served by this daemon`);
    const parsed = MethodParams[method].safeParse(params);
    if (!parsed.success)
      throw new ConsoleCallError(400, `invalid params: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
    try {
      return await handler(parsed.data, { connectionId: -1, signal: signal ?? new AbortController().signal });
    } catch (e) {
      if (e instanceof RpcError) throw new ConsoleCallError(e.code === -32602 ? 400 : 422, e.message);
      throw e;
    }
  }) as ConsoleCall;
}
