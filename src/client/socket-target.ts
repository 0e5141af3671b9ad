import { readSocketHints } from "../config/socket-hints.js";
import { expandPath } from "../config/paths.js";
import { resolveSocketPath } from "../rpc/socket-path.js";

/**
 * The socket a client (the CLI, a hook) talks to: found as the daemon finds it (rpc/socket-path.ts,
 * with the config file's daemon.socketPath and dataDir, and $CORTEXD_DATA_DIR) but without loading the
 * config schema.
 */
export function clientSocketPath(
  env: NodeJS.ProcessEnv,
  flags: { socket?: string; config?: string; dataDir?: string } = {},
): string {
  const hints = flags.socket || env.CORTEXD_SOCKET?.trim() ? {} : readSocketHints(flags.config, env);
  const dataDir = flags.dataDir ?? env.CORTEXD_DATA_DIR ?? hints.dataDir;
  return resolveSocketPath({
    env,
    ...(flags.socket ? { socket: flags.socket } : {}),
    ...(hints.socketPath ? { configured: hints.socketPath } : {}),
    ...(dataDir ? { dataDir: expandPath(dataDir, env) } : {}),
  });
}
