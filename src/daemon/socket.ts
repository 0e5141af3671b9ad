import type { LoadedConfig } from "../config/load.js";
import { resolveSocketPath } from "../rpc/socket-path.js";

/** The daemon's socket: $CORTEXD_SOCKET, daemon.socketPath, else the platform default (rpc/socket-path.ts). */
export function socketPathFor(loaded: LoadedConfig, env: NodeJS.ProcessEnv = process.env): string {
  const configured = loaded.config.daemon.socketPath;
  return resolveSocketPath({ env, dataDir: loaded.dataDir, ...(configured ? { configured } : {}) });
}
