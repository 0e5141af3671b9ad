import { existsSync } from "node:fs";
import { expandPath } from "../config/paths.js";
import { clientSocketPath } from "../client/socket-target.js";

/** The global options that say which daemon and workspace a command talks to. */
export interface DaemonTargetOptions {
  config?: string;
  dataDir?: string;
  workspace?: string;
}

/**
 * The `workspace` param to send to the daemon for --workspace: an existing directory as an absolute
 * root, anything else as a namespace name; undefined when not given (the daemon's first workspace).
 */
export function daemonWorkspace(opts: DaemonTargetOptions): string | undefined {
  if (!opts.workspace) return undefined;
  const abs = expandPath(opts.workspace);
  return existsSync(abs) ? abs : opts.workspace;
}

/**
 * The daemon's socket, found as the daemon finds it (socketPathFor) but without loading and
 * validating the config schema, so a command that only asks the daemon starts like a shell tool.
 * Undefined when --config names a file that does not exist: the caller then loads the config
 * fully, which reports that error.
 */
export function daemonSocket(opts: DaemonTargetOptions, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const explicit = opts.config ?? env.CORTEXD_CONFIG;
  if (explicit && !existsSync(expandPath(explicit, env))) return undefined;
  return clientSocketPath(env, {
    ...(opts.config ? { config: opts.config } : {}),
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
  });
}
