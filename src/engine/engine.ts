import { MODEL_LOADING_REASON } from "../embed/loading.js";
import type { Logger } from "pino";
import type { LoadedConfig } from "../config/load.js";
import { indexPath } from "../config/paths.js";
import type { Config, WorkspaceConfig } from "../config/schema.js";
import { selectProvider, type ProviderStatus, type SelectedProvider } from "../embed/select.js";
import type { EmbeddingProvider } from "../embed/provider.js";
import { openIndexChecked, type IndexRecovery } from "../index/db/open-checked.js";
import type { ReadOnlyIndex } from "../index/db/open-read-only.js";
import { createIndexAccess } from "./index-access.js";
import { IndexStore } from "../index/repos/store.js";
import { Indexer } from "../indexer/sync.js";
import { Searcher } from "../search/searcher.js";
import { silentLogger } from "../util/logger.js";
import { defaultNamespace } from "../workspace/namespace.js";
import type { ScanTarget } from "../workspace/scan.js";
import {
  assignClaudeMemory,
  autoMemoryFilter,
  claudeProjectsDir,
  describeClaudeMemory,
  findClaudeMemory,
} from "../workspace/claude-code-memory.js";
import { workspaceForCwd } from "../workspace/by-cwd.js";
import { findConfiguredWorkspace } from "../workspace/resolve.js";
import { writeOptions } from "../multi-device/write-target.js";

/** One workspace's namespace: its index, indexer and searcher. */
export interface WorkspaceEngine {
  name: string;
  root: string;
  config: WorkspaceConfig;
  /** What of Claude Code's memory this workspace indexes, as found ("1 project, 2 auto-memory files, 2 CLAUDE.md"). */
  claudeCode?: string;
  target: ScanTarget;
  dbPath: string;
  store: IndexStore;
  indexer: Indexer;
  searcher: Searcher;
  /** Set when the index was found damaged at open, moved aside and started afresh (the next sync rebuilds it). */
  recovery?: IndexRecovery;
  /** Set while the index's directory cannot be written: the index is searched as it is, writes wait (see index-access.ts). */
  readOnly?: ReadOnlyIndex;
  /** Opened without its quick_check, being too large to check at open (OpenEngineOptions.verifyAtOpenMaxBytes). */
  checkLater?: true;
  /** A team workspace (config `shared`): never private, saves only when named, bullets tagged with authorTag. */
  shared?: boolean;
  authorTag?: string;
  /** Per-device daily logs: this device's name (memory/YYYY-MM-DD.<device>.md). */
  device?: string;
}

/** Everything a command or the daemon needs, built from a config: dependencies are wired here only. */
export interface Engine {
  config: Config;
  configFile: string | null;
  dataDir: string;
  provider: EmbeddingProvider | null;
  providerStatus: ProviderStatus;
  workspaces: WorkspaceEngine[];
  logger: Logger;
  /** Swaps the embedding provider everywhere (e.g. once the model has loaded in the background). */
  setProvider(selected: SelectedProvider): Promise<void>;
  /** The workspace for a root path or namespace name (default: the first that is not shared). */
  workspace(selector?: string): WorkspaceEngine;
  /** Throws ReadOnlyIndexError while the workspace's data dir is read-only; once it is writable again, reopens the index read-write. */
  ensureWritable(ws: WorkspaceEngine): void;
  /** After a failed write: when the data dir now refuses writes, marks the workspace read-only and returns why (else null). */
  noteWriteFailure(ws: WorkspaceEngine, e: unknown): ReadOnlyIndex | null;
  /** A damage SQLite reported while running: the index is moved aside and a fresh one swapped in (null when `e` is no corruption). */
  recoverCorruption(ws: WorkspaceEngine, e: unknown): IndexRecovery | null;
  close(): Promise<void>;
}

export interface OpenEngineOptions {
  /** Start keyword-only and leave provider selection to the caller (the daemon loads it in the background). */
  deferProvider?: boolean;
  logger?: Logger;
  clock?: () => number;
  onModelBuildProgress?: (p: { phase: string; done: number; total: number }) => void;
  /** Run SQLite's quick_check on each index at open (the daemon and `cortexd index`); damage is always detected when SQLite reports it. */
  verifyIndexes?: boolean;
  /** With verifyIndexes: an index larger than this (bytes) is opened unchecked and marked `checkLater` (the daemon checks it once it answers). */
  verifyAtOpenMaxBytes?: number;
  /** Keep each index's keyword postings in memory (the daemon: exact BM25 without asking FTS5; see index/keyword-postings). */
  keywordsInMemory?: boolean;
}

export { indexPath };

export async function openEngine(loaded: LoadedConfig, opts: OpenEngineOptions = {}): Promise<Engine> {
  const { config, dataDir } = loaded;
  const logger = opts.logger ?? silentLogger();
  const clock = opts.clock ?? Date.now;
  // Deferred: the model loads after the start; with no provider configured there is none to load.
  const selected: SelectedProvider =
    opts.deferProvider && config.embedding.provider !== "none"
      ? {
          provider: null,
          status: { state: "keyword-only", provider: config.embedding.provider, reason: MODEL_LOADING_REASON },
        }
      : await selectProvider(config.embedding, {
          dataDir,
          logger,
          ...(opts.onModelBuildProgress ? { onBuildProgress: opts.onModelBuildProgress } : {}),
        });
  const provider = selected.provider;
  const access = createIndexAccess({ logger, clock, quickCheck: opts.verifyIndexes ?? false });
  const names = new Set<string>();
  const claudeMemory = claudeMemoryPaths(config.workspaces);
  const workspaces = config.workspaces.map((w, i): WorkspaceEngine => {
    const name = w.name ?? defaultNamespace(w.path);
    if (names.has(name))
      throw new Error(`two workspaces share the namespace "${name}": give one a different "name" in the config`);
    names.add(name);
    const dbPath = indexPath(dataDir, name);
    const { opened, recovery, readOnly, checkLater } = openIndexChecked(dbPath, {
      quickCheck: opts.verifyIndexes ?? false,
      ...(opts.verifyAtOpenMaxBytes !== undefined ? { quickCheckMaxBytes: opts.verifyAtOpenMaxBytes } : {}),
      logger,
      clock,
    });
    const store = new IndexStore(opened, name, clock);
    if (opts.keywordsInMemory) store.keepKeywordsInMemory();
    const target: ScanTarget = {
      root: w.path,
      transcriptDirs: w.transcriptDirs,
      extraPaths: w.extraPaths,
      ...(claudeMemory[i]?.paths.length ? { claudeMemory: claudeMemory[i].paths } : {}),
      ...(claudeMemory[i]?.projects ? { claudeProjects: claudeMemory[i].projects } : {}),
    };
    const claudeCode = claudeMemory[i]?.summary;
    const indexer = new Indexer({
      store,
      target,
      provider,
      chunking: config.chunking,
      embedBatchSize: config.embedding.batchSize,
      logger,
      clock,
    });
    const searcher = new Searcher({
      store,
      provider,
      config: config.search,
      ...(selected.status.reason ? { providerUnavailable: selected.status.reason } : {}),
    });
    return {
      name,
      root: w.path,
      config: w,
      ...(claudeCode ? { claudeCode } : {}),
      target,
      dbPath,
      store,
      indexer,
      searcher,
      ...(recovery ? { recovery } : {}),
      ...(readOnly ? { readOnly } : {}),
      ...(checkLater ? { checkLater } : {}),
      ...writeOptions(w, config),
    };
  });
  const engine: Engine = {
    config,
    configFile: loaded.file,
    dataDir,
    provider,
    providerStatus: selected.status,
    workspaces,
    logger,
    async setProvider(next: SelectedProvider) {
      const old = engine.provider;
      engine.provider = next.provider;
      engine.providerStatus = next.status;
      for (const w of workspaces) {
        w.indexer.setProvider(next.provider);
        w.searcher.setProvider(next.provider, next.status.reason);
      }
      if (old && old !== next.provider) await old.close();
    },
    workspace(selector?: string) {
      // The default is the first personal workspace: a team's (shared) one is used only when named.
      if (!selector) return workspaces.find((w) => !w.shared) ?? workspaces[0]!;
      return workspaces[findConfiguredWorkspace(selector, workspaces).index]!;
    },
    ensureWritable: (ws) => access.ensureWritable(ws),
    noteWriteFailure: (ws, e) => access.noteWriteFailure(ws, e),
    recoverCorruption: (ws, e) => access.recoverCorruption(ws, e),
    async close() {
      for (const w of workspaces) w.store.close();
      access.close();
      await engine.provider?.close();
    },
  };
  return engine;
}

/**
 * Claude Code's memory for the workspaces that index it (`claudeCodeMemory`), per configured
 * workspace: the folders and CLAUDE.md files found now (from this process's HOME), and the projects
 * dir whose default auto-memory folders are matched file by file (so new projects need no restart).
 * A project goes to the workspace whose root or `projects` holds it, else to the first of them.
 */
function claudeMemoryPaths(
  configured: readonly WorkspaceConfig[],
): ({ paths: string[]; summary: string; projects?: NonNullable<ScanTarget["claudeProjects"]> } | undefined)[] {
  const on = configured.flatMap((w, i) => (w.claudeCodeMemory ? [{ i, root: w.path, projects: w.projects }] : []));
  const out: ReturnType<typeof claudeMemoryPaths> = configured.map(() => undefined);
  if (!on.length) return out;
  const found = findClaudeMemory({ projects: on.flatMap((w) => w.projects) });
  const dir = claudeProjectsDir();
  const inTree = (p: string) => p.startsWith(dir + "/");
  assignClaudeMemory(found, on).forEach((paths, k) => {
    const owner = (project: string | undefined) => {
      const ws = project ? workspaceForCwd(on, project) : undefined;
      return (ws ?? on[0]) === on[k];
    };
    const mine = new Set(paths);
    const sources = found.sources.filter((s) => mine.has(s.path));
    const summary = describeClaudeMemory({
      ...found,
      projects: found.projects.filter((p) => owner(p)),
      sources,
    });
    out[on[k]!.i] = {
      paths: paths.filter((p) => !inTree(p)),
      summary,
      projects: { dir, accepts: autoMemoryFilter(owner) },
    };
  });
  return out;
}

/**
 * Finds Claude Code's memory again (a project appeared while the daemon runs): each workspace's
 * `claudeMemory` becomes what is found now; returns the paths added, by workspace name.
 */
export function rediscoverClaudeMemory(engine: Engine): Map<string, string[]> {
  const added = new Map<string, string[]>();
  const found = claudeMemoryPaths(engine.workspaces.map((w) => w.config));
  engine.workspaces.forEach((ws, i) => {
    const paths = found[i]?.paths ?? [];
    if (found[i]) ws.claudeCode = found[i].summary;
    const had = new Set(ws.target.claudeMemory ?? []);
    const fresh = paths.filter((p) => !had.has(p));
    if (!fresh.length) return;
    ws.target.claudeMemory = [...had, ...fresh];
    added.set(ws.name, fresh);
  });
  return added;
}
