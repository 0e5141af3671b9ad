/**
 * A JSON-RPC error answer (code from ErrorCodes, src/rpc/error-codes.ts), one class for both ends: a
 * method handler throws it for the server to answer with (src/rpc/dispatch.ts), and the client
 * rejects a call with it when the daemon answered with an error (src/client/connection.ts). A leaf:
 * the client and the OpenClaw plugin's vendored copy load it without the server.
 */
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
