import { existsSync } from "node:fs";
import { homedir } from "node:os";
import type { z } from "zod";
import { ConfigSchema, type Config } from "./schema.js";
import { defaultConfigPath, defaultDataDir, expandPath } from "./paths.js";
import { ConfigError } from "./config-error.js";
import { JsoncError, parseJsonc } from "./jsonc.js";
import { normaliseRoot, reusedNamespace } from "../workspace/root-path.js";
import { readConfigText } from "./read-config.js";

export { ConfigError };

export interface LoadedConfig {
  config: Config;
  /** The file it came from, or null when defaults were used (no file). */
  file: string | null;
  dataDir: string;
}

/** Formats zod issues as "key.path: message (got X)" lines. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const key = i.path.length ? i.path.join(".") : "(root)";
      return `${key}: ${i.message}`;
    })
    .join("; ");
}

/** Validates an already-parsed object. */
export function validateConfig(raw: unknown, file?: string): Config {
  const parsed = ConfigSchema.safeParse(raw ?? {});
  if (!parsed.success) throw new ConfigError(`invalid configuration: ${describeIssues(parsed.error)}`, file);
  return parsed.data;
}

/** Parses JSON-with-comments text; errors name the offset and the problem. */
export function parseConfigText(text: string, file?: string): unknown {
  try {
    return parseJsonc(text);
  } catch (e) {
    if (!(e instanceof JsoncError)) throw e;
    throw new ConfigError(`not valid JSON (with comments): ${e.message}`, file);
  }
}

/**
 * Environment overrides (for service managers and tests):
 * CORTEXD_CONFIG (file), CORTEXD_DATA_DIR, CORTEXD_WORKSPACE (one workspace root, replaces the list),
 * CORTEXD_LOG_LEVEL, CORTEXD_EMBEDDING_PROVIDER, CORTEXD_MODEL, CORTEXD_SOCKET.
 */
export function applyEnvOverrides(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): Record<string, unknown> {
  const out: Record<string, unknown> = { ...raw };
  if (env.CORTEXD_DATA_DIR) out.dataDir = env.CORTEXD_DATA_DIR;
  if (env.CORTEXD_WORKSPACE) out.workspaces = [{ path: env.CORTEXD_WORKSPACE }];
  if (env.CORTEXD_LOG_LEVEL) out.logLevel = env.CORTEXD_LOG_LEVEL;
  const embedding = { ...((out.embedding as Record<string, unknown> | undefined) ?? {}) };
  if (env.CORTEXD_EMBEDDING_PROVIDER) embedding.provider = env.CORTEXD_EMBEDDING_PROVIDER;
  if (env.CORTEXD_MODEL) embedding.model = env.CORTEXD_MODEL;
  if (Object.keys(embedding).length) out.embedding = embedding;
  const socket = env.CORTEXD_SOCKET?.trim(); // blanks are no setting, spaces around a path are not part of it
  if (socket) out.daemon = { ...((out.daemon as Record<string, unknown> | undefined) ?? {}), socketPath: socket };
  return out;
}

export interface LoadOptions {
  /** Explicit config file; an explicit file that does not exist is an error. */
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** Applied last (CLI flags). */
  overrides?: Record<string, unknown>;
}

/** Loads the config file (if any), applies env overrides, validates, resolves paths. */
export function loadConfig(opts: LoadOptions = {}): LoadedConfig {
  const env = opts.env ?? process.env;
  const explicit = opts.file ?? env.CORTEXD_CONFIG;
  const file = explicit ? expandPath(explicit, env) : defaultConfigPath(env);
  let raw: Record<string, unknown> = {};
  let used: string | null = null;
  if (existsSync(file)) {
    const value = parseConfigText(readConfigText(file), file);
    if (value === undefined || value === null) raw = {};
    else if (typeof value !== "object" || Array.isArray(value))
      throw new ConfigError("the top level must be an object { ... }", file);
    else raw = value as Record<string, unknown>;
    used = file;
  } else if (explicit) {
    throw new ConfigError(
      `config file not found (set CORTEXD_CONFIG or --config to an existing file, or create it)`,
      file,
    );
  }
  raw = applyEnvOverrides(raw, env);
  if (opts.overrides) raw = { ...raw, ...opts.overrides };
  const config = validateConfig(raw, used ?? undefined);
  const dataDir = config.dataDir ? expandPath(config.dataDir, env) : defaultDataDir(env);
  const where = { cwd: process.cwd(), home: env.HOME || homedir() };
  config.workspaces = config.workspaces.map((w) => {
    const root = normaliseRoot(w.path, where.cwd, where.home);
    const name = w.name ?? reusedNamespace(w.path, root, dataDir, where);
    return {
      ...w,
      path: root,
      ...(name ? { name } : {}),
      transcriptDirs: w.transcriptDirs.map((d) => expandPath(d, env)),
      extraPaths: w.extraPaths.map((d) => expandPath(d, env)),
      projects: w.projects.map((d) => expandPath(d, env)),
    };
  });
  config.dataDir = dataDir;
  return { config, file: used, dataDir };
}
