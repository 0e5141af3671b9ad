import type { LoadedConfig } from "../config/load.js";
import { expandPath } from "../config/paths.js";
import { resolveSocketPath } from "../rpc/socket-path.js";

/** The daemon's socket: daemon.socketPath (or CORTEXD_SOCKET), else the platform default. */
export function socketPathFor(loaded: LoadedConfig, env: NodeJS.ProcessEnv = process.env): string {
  const configured = loaded.config.daemon.socketPath;
  return resolveSocketPath({
    env: configured ? { ...env, CORTEXD_SOCKET: expandPath(configured, env) } : env,
    dataDir: loaded.dataDir,
  });
}
