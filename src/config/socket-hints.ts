import { defaultConfigPath, expandPath } from "./paths.js";
import { parseJsonc } from "./jsonc.js";
import { MAX_CONFIG_BYTES } from "./read-config.js";
import { readRegularTextSync } from "../util/regular-file.js";

/**
 * The two settings of the config file that say where the daemon listens (daemon.socketPath, dataDir),
 * read without the config schema (zod) so a hook or a daemon-backed command starts fast. A missing
 * or broken file gives none (the daemon reports a broken one).
 */
export interface SocketHints {
  socketPath?: string;
  dataDir?: string;
}

export function readSocketHints(file: string | undefined, env: NodeJS.ProcessEnv): SocketHints {
  let text: string;
  try {
    text = readRegularTextSync(expandPath(file ?? env.CORTEXD_CONFIG ?? defaultConfigPath(env), env), {
      maxBytes: MAX_CONFIG_BYTES,
    });
  } catch {
    return {};
  }
  let cfg: { daemon?: { socketPath?: unknown }; dataDir?: unknown } = {};
  try {
    const parsed = parseJsonc(text);
    if (parsed && typeof parsed === "object") cfg = parsed as typeof cfg;
  } catch {
    return {};
  }
  const hints: SocketHints = {};
  if (typeof cfg.daemon?.socketPath === "string") hints.socketPath = cfg.daemon.socketPath;
  if (typeof cfg.dataDir === "string") hints.dataDir = cfg.dataDir;
  return hints;
}
