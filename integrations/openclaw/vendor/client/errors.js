// Generated from src/client/errors.ts by scripts/openclaw/gen-client.ts: do not edit.
/**
 * How a call to the daemon fails: DaemonUnavailableError (not reached, or gone: with a reason for
 * `cortexd status`) or RpcError (the daemon answered with an error; code from ErrorCodes; src/rpc/rpc-error.ts,
 * the class the server's handlers throw).
 */
export { RpcError } from "../rpc/rpc-error.js";
export class DaemonUnavailableError extends Error {
    reason;
    code;
    constructor(reason, message, code) {
        super(message);
        this.reason = reason;
        this.code = code;
        this.name = "DaemonUnavailableError";
    }
}
/** The DaemonUnavailableError for a failed connect (errno → reason). */
export function connectError(socketPath, err) {
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
