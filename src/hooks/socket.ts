import { readFileSync } from "node:fs";
import { defaultConfigPath, expandPath } from "../config/paths.js";
import { placeSocket, resolveSocketPath } from "../rpc/socket-path.js";

/**
 * The daemon's socket path, resolved the way the daemon resolves it (socketPathFor) but without
 * loading the zod config schema: --socket, $CORTEXD_SOCKET, the config file's daemon.socketPath,
 * then the platform default under $XDG_RUNTIME_DIR or the data dir.
 */
export function hookSocketPath(
  env: NodeJS.ProcessEnv,
  flags: { socket?: string; config?: string; dataDir?: string } = {},
): string {
  if (flags.socket) return placeSocket(expandPath(flags.socket, env));
  if (env.CORTEXD_SOCKET?.trim()) return resolveSocketPath({ env });
  const file = flags.config ?? env.CORTEXD_CONFIG ?? defaultConfigPath(env);
  let cfg: { daemon?: { socketPath?: unknown }; dataDir?: unknown } = {};
  try {
    const parsed: unknown = JSON.parse(stripJsonComments(readFileSync(expandPath(file, env), "utf8")));
    if (parsed && typeof parsed === "object") cfg = parsed as typeof cfg;
  } catch {
    // no config (or unreadable): defaults
  }
  const socketPath = typeof cfg.daemon?.socketPath === "string" ? cfg.daemon.socketPath : undefined;
  const dataDir = flags.dataDir ?? env.CORTEXD_DATA_DIR ?? (typeof cfg.dataDir === "string" ? cfg.dataDir : undefined);
  return resolveSocketPath({
    env: socketPath ? { ...env, CORTEXD_SOCKET: expandPath(socketPath, env) } : env,
    ...(dataDir ? { dataDir: expandPath(dataDir, env) } : {}),
  });
}

/** JSON with comments and trailing commas → JSON (strings are left alone). */
export function stripJsonComments(text: string): string {
  let out = "";
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < n && text[i] !== "\n") i++;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end === -1 ? n : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  return out.replace(/,(\s*[}\]])/g, "$1");
}
