import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Expands a leading "~" and makes the path absolute (no trailing slash; workspace roots: workspace/root-path.ts). */
export function expandPath(p: string, env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME || homedir();
  if (p === "~") return home;
  if (p.startsWith("~/")) return resolve(home, p.slice(2));
  return resolve(p);
}

/** XDG base directories (with the spec's defaults). */
export function xdgDataHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.XDG_DATA_HOME ? resolve(env.XDG_DATA_HOME) : join(env.HOME || homedir(), ".local", "share");
}

export function xdgConfigHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.XDG_CONFIG_HOME ? resolve(env.XDG_CONFIG_HOME) : join(env.HOME || homedir(), ".config");
}

/** Default data dir: $XDG_DATA_HOME/cortexd (indexes, models, state). */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(xdgDataHome(env), "cortexd");
}

/** Default config file: $XDG_CONFIG_HOME/cortexd/config.json (JSON with comments). */
export function defaultConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(xdgConfigHome(env), "cortexd", "config.json");
}

/** Where a namespace's index lives in the data dir. */
export function indexPath(dataDir: string, namespace: string): string {
  return join(dataDir, "indexes", `${namespace}.sqlite`);
}
