import { existsSync } from "node:fs";
import { loadConfig, type LoadedConfig } from "../config/load.js";
import { expandPath } from "../config/paths.js";
import { openEngine, type Engine, type OpenEngineOptions } from "../engine/engine.js";
import { createLogger } from "../util/logger.js";

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
    if (!known) loaded.config.workspaces = [{ path: abs, transcriptDirs: [], extraPaths: [], projects: [] }];
  }
  return loaded;
}

export async function openCliEngine(opts: GlobalOptions, extra: OpenEngineOptions = {}): Promise<Engine> {
  const loaded = loadForCli(opts);
  const level = opts.verbose ? "debug" : loaded.config.logLevel;
  return openEngine(loaded, { logger: createLogger(level), ...extra });
}

/** Picks the workspace named by --workspace (root or name), else the first. */
export function selectWorkspace(engine: Engine, opts: GlobalOptions) {
  if (!opts.workspace) return engine.workspaces[0]!;
  const abs = expandPath(opts.workspace);
  return engine.workspaces.find((w) => w.root === abs || w.name === opts.workspace) ?? engine.workspace(opts.workspace);
}

/**
 * The `workspace` param to send to the daemon for --workspace: an existing directory as an absolute
 * root, anything else as a namespace name; undefined when not given (the daemon's first workspace).
 */
export function daemonWorkspace(opts: GlobalOptions): string | undefined {
  if (!opts.workspace) return undefined;
  const abs = expandPath(opts.workspace);
  return existsSync(abs) ? abs : opts.workspace;
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + "\n");
}

/** A user-facing failure: message printed without a stack, exit code set. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
    this.name = "CliError";
  }
}
