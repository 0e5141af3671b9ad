import type { Logger } from "pino";
import { loadConfig } from "../config/load.js";
import type { Engine } from "../engine/engine.js";

/** SIGHUP / daemon.reload: re-reads the config, applies what can change live, names what needs a restart. */
export interface ReloadDeps {
  engine: Engine;
  logger: Logger;
  /** The config file to re-read (default: the usual search). */
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** Loads the (changed) embedding model in the background. */
  reloadModel: () => void;
}

export function reloadConfig(deps: ReloadDeps): { applied: string[]; restartNeeded: string[] } {
  const { engine, logger } = deps;
  const next = loadConfig({
    ...(deps.file ? { file: deps.file } : {}),
    ...(deps.env ? { env: deps.env } : {}),
  });
  const applied: string[] = [];
  const restartNeeded: string[] = [];
  const cur = engine.config;
  if (next.config.logLevel !== cur.logLevel) {
    logger.level = next.config.logLevel;
    applied.push("logLevel");
  }
  if (JSON.stringify(next.config.search) !== JSON.stringify(cur.search)) {
    for (const w of engine.workspaces) w.searcher.setConfig(next.config.search);
    applied.push("search");
  }
  if (JSON.stringify(next.config.recall) !== JSON.stringify(cur.recall)) applied.push("recall");
  if (JSON.stringify(next.config.embedding) !== JSON.stringify(cur.embedding)) {
    cur.embedding = next.config.embedding;
    deps.reloadModel();
    applied.push("embedding");
  }
  for (const key of ["workspaces", "chunking", "daemon", "schedule", "dataDir", "ui"] as const) {
    if (JSON.stringify(next.config[key]) !== JSON.stringify(cur[key])) restartNeeded.push(key);
  }
  Object.assign(cur, { logLevel: next.config.logLevel, search: next.config.search, recall: next.config.recall });
  logger.warn({ applied, restartNeeded }, "configuration reloaded");
  return { applied, restartNeeded };
}
