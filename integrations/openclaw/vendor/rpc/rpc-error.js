// Generated from src/rpc/rpc-error.ts by scripts/openclaw/gen-client.ts: do not edit.
/**
 * A JSON-RPC error answer (code from ErrorCodes, src/rpc/error-codes.ts), one class for both ends: a
 * method handler throws it for the server to answer with (src/rpc/dispatch.ts), and the client
 * rejects a call with it when the daemon answered with an error (src/client/connection.ts). A leaf:
 * the client and the OpenClaw plugin's vendored copy load it without the server.
 */
export class RpcError extends Error {
    code;
    data;
    constructor(code, message, data) {
        super(message);
        this.code = code;
        this.data = data;
        this.name = "RpcError";
    }
}
