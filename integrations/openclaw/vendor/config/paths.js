// Generated from src/config/paths.ts by scripts/openclaw/gen-client.ts: do not edit.
import { homedir } from "node:os";
import { join, resolve } from "node:path";
/** Expands a leading "~" and makes the path absolute (no trailing slash; workspace roots: workspace/root-path.ts). */
export function expandPath(p, env = process.env) {
    const home = env.HOME || homedir();
    if (p === "~")
        return home;
    if (p.startsWith("~/"))
        return resolve(home, p.slice(2));
    return resolve(p);
}
/** XDG base directories (with the spec's defaults). */
export function xdgDataHome(env = process.env) {
    return env.XDG_DATA_HOME ? resolve(env.XDG_DATA_HOME) : join(env.HOME || homedir(), ".local", "share");
}
export function xdgConfigHome(env = process.env) {
    return env.XDG_CONFIG_HOME ? resolve(env.XDG_CONFIG_HOME) : join(env.HOME || homedir(), ".config");
}
/** Default data dir: $XDG_DATA_HOME/cortexd (indexes, models, state). */
export function defaultDataDir(env = process.env) {
    return join(xdgDataHome(env), "cortexd");
}
/** Default config file: $XDG_CONFIG_HOME/cortexd/config.json (JSON with comments). */
export function defaultConfigPath(env = process.env) {
    return join(xdgConfigHome(env), "cortexd", "config.json");
}
/** Where a namespace's index lives in the data dir. */
export function indexPath(dataDir, namespace) {
    return join(dataDir, "indexes", `${namespace}.sqlite`);
}
