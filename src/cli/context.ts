import { loadConfig, type LoadedConfig } from "../config/load.js";
import { expandPath } from "../config/paths.js";
import type { Engine, OpenEngineOptions } from "../engine/engine.js";

// Kept in leaf modules so that commands which only ask the daemon load no config schema.
export { CliError } from "./cli-error.js";
export { printJson } from "./print-json.js";
export { daemonWorkspace } from "./daemon-target.js";

/** Options every command accepts. */
export interface GlobalOptions {
  config?: string;
  dataDir?: string;
  workspace?: string;
  json?: boolean;
  verbose?: boolean;
}

/**
 * Loads the config with CLI overrides: --workspace DIR selects a configured workspace by root or
 * name, or, when it is neither, indexes DIR on its own (no config needed).
 */
export function loadForCli(opts: GlobalOptions): LoadedConfig {
  const loaded = loadConfig({ ...(opts.config ? { file: opts.config } : {}), ...(opts.dataDir ? { overrides: { dataDir: opts.dataDir } } : {}) });
  if (opts.dataDir) loaded.dataDir = expandPath(opts.dataDir);
  if (opts.workspace) {
    const abs = expandPath(opts.workspace);
    const known = loaded.config.workspaces.some((w) => w.path === abs || w.name === opts.workspace);
    if (!known) loaded.config.workspaces = [{ path: abs, transcriptDirs: [], extraPaths: [] }];
  }
  return loaded;
}

export async function openCliEngine(opts: GlobalOptions, extra: OpenEngineOptions = {}): Promise<Engine> {
  const loaded = loadForCli(opts);
  const level = opts.verbose ? "debug" : loaded.config.logLevel;
  // Loaded here, not at the top: commands that only talk to the daemon never load the index code.
  const [{ openEngine }, { createLogger }] = await Promise.all([import("../engine/engine.js"), import("../util/logger.js")]);
  return openEngine(loaded, { logger: createLogger(level), ...extra });
}

/** Picks the workspace named by --workspace (root or name), else the first. */
export function selectWorkspace(engine: Engine, opts: GlobalOptions) {
  if (!opts.workspace) return engine.workspaces[0]!;
  const abs = expandPath(opts.workspace);
  return engine.workspaces.find((w) => w.root === abs || w.name === opts.workspace) ?? engine.workspace(opts.workspace);
}
