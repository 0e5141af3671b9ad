// @ts-check
/**
 * The plugin's way to cortexd: cortexd's own JSON-RPC client and socket-path rules, vendored in
 * ./vendor (generated from cortexd's src/ by scripts/openclaw/gen-client.ts; the package stays free of
 * dependencies). One connection is kept and reused, reopened after the daemon restarts; every call
 * has a timeout. Failures are DaemonUnavailableError (not reachable, timed out) or RpcError (the
 * daemon refused the call).
 */
import { resolveSocketPath } from "./vendor/rpc/socket-path.js";
import { sharedClient } from "./vendor/client/shared.js";

export { SocketPathTooLongError } from "./vendor/rpc/socket-path.js";
export { DaemonUnavailableError, RpcError } from "./vendor/client/errors.js";

/**
 * Where cortexd listens, resolved by the daemon's own rules from the environment ($CORTEXD_SOCKET,
 * $XDG_RUNTIME_DIR, the data dir $CORTEXD_DATA_DIR or $XDG_DATA_HOME/cortexd, macOS's defaults); throws
 * SocketPathTooLongError when no candidate fits in a Unix socket path.
 * @param {NodeJS.ProcessEnv} [env]
 * @param {{ platform?: NodeJS.Platform, uid?: number }} [opts]
 */
export function defaultSocketPath(env = process.env, opts = {}) {
  return resolveSocketPath({ env, ...opts, ...(env.CORTEXD_DATA_DIR ? { dataDir: env.CORTEXD_DATA_DIR } : {}) });
}

/**
 * @param {{ socketPath: string, connectTimeoutMs?: number }} opts
 */
export function createClient(opts) {
  return sharedClient(opts);
}

/**
 * cortexd was not reached, or went away (a DaemonUnavailableError). By name, not instanceof: a
 * gateway can load the plugin's modules more than once, each with its own copy of the class.
 * @param {unknown} e
 * @returns {e is import("./vendor/client/errors.js").DaemonUnavailableError}
 */
export function isUnavailable(e) {
  return e instanceof Error && e.name === "DaemonUnavailableError";
}
