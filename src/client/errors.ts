/**
 * How a call to the daemon fails: DaemonUnavailableError (not reached, or gone: with a reason for
 * `cortexd status`) or RpcError (the daemon answered with an error; code from ErrorCodes; src/rpc/rpc-error.ts,
 * the class the server's handlers throw).
 */

export { RpcError } from "../rpc/rpc-error.js";

export type UnavailableReason = "no-socket" | "stale-socket" | "permission" | "timeout" | "closed" | "error";

export class DaemonUnavailableError extends Error {
  constructor(
    readonly reason: UnavailableReason,
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = "DaemonUnavailableError";
  }
}

/** The DaemonUnavailableError for a failed connect (errno → reason). */
export function connectError(socketPath: string, err: NodeJS.ErrnoException): DaemonUnavailableError {
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
