import { existsSync } from "node:fs";
import { loadConfig, type LoadedConfig } from "../config/load.js";
import { expandPath, indexPath } from "../config/paths.js";
import type { WorkspaceConfig } from "../config/schema.js";
import type { Engine, OpenEngineOptions } from "../engine/engine.js";
import { defaultNamespace } from "../workspace/namespace.js";
import {
  missingRootProblem,
  resolveWorkspace,
  WorkspaceResolutionError,
  type KnownWorkspace,
} from "../workspace/resolve.js";
import { CliError } from "./cli-error.js";

// Kept in leaf modules so that commands which only ask the daemon load no config schema.
export { CliError } from "./cli-error.js";
export { printJson } from "./print-json.js";
export { daemonWorkspace } from "./daemon-target.js";

/** Options every command accepts. */
export interface GlobalOptions {
  config?: string;
  dataDir?: string;
  /** The one --workspace given (see `workspaces` for `run`, which takes several). */
  workspace?: string;
  /** Every --workspace given, in order (set by the program's preAction hook). */
  workspaces?: string[];
  json?: boolean;
  verbose?: boolean;
}

/** The config as a CLI command sees it: `selected` is the workspace the command acts on. */
export interface CliConfig extends LoadedConfig {
  selected: WorkspaceConfig;
  /** Set when the user chose the workspace (--workspace): its absolute root. */
  chosenRoot?: string;
}

export function knownWorkspaces(workspaces: readonly WorkspaceConfig[]): KnownWorkspace[] {
  return workspaces.map((w) => ({ name: w.name ?? defaultNamespace(w.path), root: w.path }));
}

/**
 * Loads the config with CLI overrides and resolves --workspace (src/workspace/resolve.ts): a
 * configured name or root selects that workspace; an existing directory with memory files that is
 * not configured is indexed on its own; anything else is a CliError naming the known workspaces.
 * For `run`, every --workspace given is resolved and the daemon serves exactly those.
 */
export function loadForCli(opts: GlobalOptions): CliConfig {
  const loaded = loadConfig({
    ...(opts.config ? { file: opts.config } : {}),
    ...(opts.dataDir ? { overrides: { dataDir: opts.dataDir } } : {}),
  });
  if (opts.dataDir) loaded.dataDir = expandPath(opts.dataDir);
  const selectors = opts.workspaces ?? (opts.workspace ? [opts.workspace] : []);
  // No selector: the first personal workspace (a team's shared one is used only when named).
  if (!selectors.length)
    return { ...loaded, selected: loaded.config.workspaces.find((w) => !w.shared) ?? loaded.config.workspaces[0]! };
  const configured = loaded.config.workspaces;
  const known = knownWorkspaces(configured);
  const chosen = selectors.map((s): WorkspaceConfig => {
    try {
      const sel = resolveWorkspace(s, known, { allowUnconfigured: true });
      return sel.kind === "configured"
        ? configured[sel.index]!
        : { path: sel.root, transcriptDirs: [], extraPaths: [], projects: [] };
    } catch (e) {
      if (e instanceof WorkspaceResolutionError) throw new CliError(e.message);
      throw e;
    }
  });
  const unique = [...new Map(chosen.map((w) => [w.path, w])).values()];
  // Several: the daemon serves exactly those. One configured: the others stay loaded (commands with --all).
  if (unique.length > 1 || !configured.includes(unique[0]!)) loaded.config.workspaces = unique;
  return { ...loaded, selected: unique[0]!, chosenRoot: unique[0]!.path };
}

export interface CliEngineOptions extends OpenEngineOptions {
  /** Read commands: refuse (instead of creating an empty index) when the selected workspace has no index yet. */
  needsIndex?: boolean;
}

/** Refuses a selected workspace whose root is missing (nothing is created for it). */
export function assertSelectedRoot(loaded: CliConfig): void {
  const problem = missingRootProblem(loaded.selected.path);
  if (problem) throw new CliError(problem);
}

export async function openCliEngine(opts: GlobalOptions, extra: CliEngineOptions = {}): Promise<Engine> {
  const loaded = loadForCli(opts);
  assertSelectedRoot(loaded);
  const { needsIndex, ...engineOpts } = extra;
  if (needsIndex) {
    const name = loaded.selected.name ?? defaultNamespace(loaded.selected.path);
    if (!existsSync(indexPath(loaded.dataDir, name))) {
      const w = loaded.chosenRoot ? ` -w ${loaded.chosenRoot}` : "";
      throw new CliError(
        `workspace ${loaded.selected.path} is not indexed yet: run \`cortexd index${w}\`, or start the daemon (\`cortexd start\`)`,
      );
    }
  }
  const level = opts.verbose ? "debug" : loaded.config.logLevel;
  // Loaded here, not at the top: commands that only talk to the daemon never load the index code.
  const [{ openEngine }, { createLogger }] = await Promise.all([
    import("../engine/engine.js"),
    import("../util/logger.js"),
  ]);
  return openEngine(loaded, { logger: createLogger(level), ...engineOpts });
}

/** The engine's workspace for the selected one (--workspace, else the first). */
export function selectWorkspace(engine: Engine, opts: GlobalOptions) {
  if (!opts.workspace) return engine.workspaces[0]!;
  const root = loadForCli(opts).selected.path;
  return engine.workspaces.find((w) => w.root === root) ?? engine.workspaces[0]!;
}
