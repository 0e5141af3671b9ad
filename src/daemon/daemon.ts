import type { Logger } from "pino";
import type { LoadedConfig } from "../config/load.js";
import { existsSync } from "node:fs";
import { modelsDir, selectProvider } from "../embed/select.js";
import { openEngine, type Engine } from "../engine/engine.js";
import type { InstanceLock } from "../rpc/instance-lock.js";
import { startRpcServer, type RpcServer } from "../rpc/server.js";
import { securePrivateData } from "../util/private-paths.js";
import type { CortexStatus, HeartbeatResult } from "../rpc/protocol.js";
import type { ConsolidationReport } from "../consolidate/report.js";
import { loadReports } from "../consolidate/report.js";
import { VERSION } from "../version.js";
import { HEARTBEAT_HISTORY, runConsolidation, runHeartbeat, runMaintenance } from "./jobs.js";
import { LaterIndexChecks } from "./index-check.js";
import { LatencyWindow } from "./latency.js";
import { MemoryCompactor } from "./memory-compactor.js";
import { acquireDaemonLocks } from "./daemon-locks.js";
import { createHandlers } from "./methods.js";
import { reloadConfig } from "./reload.js";
import { Scheduler } from "./scheduler.js";
import { socketPathFor } from "./socket.js";
import { buildStatus } from "./status.js";
import { readHookFailures } from "../hooks/failures.js";
import { SyncQueue } from "./sync-queue.js";
import { FileWatcher, type WatcherStatus } from "./watcher.js";
import { ClaudeMemoryRefresh } from "./claude-code-refresh.js";
import { errorMessage } from "../util/error-message.js";
import { GitSync } from "../multi-device/git-sync.js";
import { deviceIdentity } from "../multi-device/device.js";
import { registerGitSync, scheduleGitSync } from "../multi-device/schedule.js";
import { ConsoleHost } from "../console/host.js";
import { TopEntitiesKeeper } from "./top-entities.js";

export interface DaemonOptions {
  loaded: LoadedConfig;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  /** Config file to re-read on reload (SIGHUP). */
  configFile?: string;
}

/**
 * The long-running process: holds the single-instance lock, serves JSON-RPC on the Unix socket,
 * watches the workspaces, keeps the index in sync, runs the scheduled jobs.
 */
export class Daemon {
  readonly startedAt = Date.now();
  readonly searchLatency = new LatencyWindow(100, () => this.compactor.noteWork());
  readonly queue: SyncQueue;
  readonly compactor: MemoryCompactor;
  readonly scheduler: Scheduler;
  readonly gitSync: GitSync;
  readonly errors: { at: string; message: string }[] = [];
  lastHeartbeat: number | null = null;
  /** The last heartbeat results (bounded), newest last. */
  readonly heartbeats: HeartbeatResult[] = [];
  /** The top entities status shows, counted off the request path. */
  private readonly topEntities = new TopEntitiesKeeper();
  /** The latest consolidation run's reports (also persisted in each index). */
  lastConsolidation: ConsolidationReport[] | null = null;
  /** Why the daemon stopped (or is stopping); null while it runs. */
  stopReason: string | null = null;
  private modelLoading = false;
  /** Provider retry backoff: heartbeats to skip before the next attempt (doubles per failure, ≤ 64). */
  private providerRetry = { failures: 0, skip: 0 };
  private server: RpcServer | null = null;
  /** The local memory console (src/console): started on demand or with `ui.enabled`. */
  private console: ConsoleHost | null = null;
  private watcher: FileWatcher | null = null;
  /** quick_checks of the indexes too large to check before answering (index-check.ts). */
  private readonly laterChecks: LaterIndexChecks;
  private stopping: Promise<void> | null = null;
  private readonly done: Promise<void>;
  private resolveDone!: () => void;
  private modelLoad: Promise<void> = Promise.resolve();

  private constructor(
    readonly engine: Engine,
    readonly socketPath: string,
    private readonly lock: InstanceLock,
    private readonly opts: DaemonOptions,
    private readonly dataLock: InstanceLock | null = null,
  ) {
    this.compactor = new MemoryCompactor({ gc: (globalThis as { gc?: () => void }).gc, logger: opts.logger });
    this.queue = new SyncQueue(opts.logger, {}, () => this.compactor.noteWork(), engine);
    this.laterChecks = new LaterIndexChecks({ logger: opts.logger, onDamaged: (ws, e) => this.queue.damaged(ws, e) });
    this.scheduler = new Scheduler(opts.logger, engine.config.schedule.timezone);
    this.gitSync = new GitSync({
      device: deviceIdentity(engine.config.device).name,
      env: opts.env ?? process.env,
      // After a pull: one pass over the workspace (not one event per changed file).
      onPulled: async (ws) => {
        await this.queue.sync(engine.workspace(ws.name));
      },
    });
    registerGitSync(this.gitSync, engine.workspaces);
    this.done = new Promise((r) => (this.resolveDone = r));
  }

  get logger(): Logger {
    return this.opts.logger;
  }

  /** Starts everything; resolves once the socket answers (the model may still be loading). */
  static async start(opts: DaemonOptions): Promise<Daemon> {
    const socketPath = socketPathFor(opts.loaded, opts.env);
    // Owner-only data (0700 dirs, 0600 files): looser modes are tightened and logged, others' files refused.
    securePrivateData(opts.loaded.dataDir, opts.logger, opts.env);
    const { lock, dataLock } = await acquireDaemonLocks(opts.loaded.dataDir, socketPath, opts.logger, opts.env);
    let engine: Engine;
    try {
      engine = await openEngine(opts.loaded, {
        logger: opts.logger,
        deferProvider: true,
        verifyIndexes: true,
        verifyAtOpenMaxBytes: opts.loaded.config.daemon.checkBeforeListeningMb * 1024 * 1024,
        keywordsInMemory: true,
      });
    } catch (e) {
      lock.release();
      dataLock?.release();
      throw e;
    }
    const d = new Daemon(engine, socketPath, lock, opts, dataLock);
    try {
      await d.boot();
    } catch (e) {
      await d.stop("startup failed");
      throw e;
    }
    return d;
  }

  private async boot(): Promise<void> {
    const { engine, logger } = this;
    const cfg = engine.config;
    const handlers = createHandlers({
      engine,
      queue: this.queue,
      searchLatency: this.searchLatency,
      startedAt: this.startedAt,
      status: () => this.status(),
      reload: () => this.reload(),
      shutdown: () => void this.stop("shutdown requested over RPC"),
      consolidate: (o) => runConsolidation(this, o),
      gitSync: this.gitSync,
      openConsole: () => this.console!.open(),
    });
    this.console = new ConsoleHost({
      config: () => cfg.ui,
      handlers,
      latency: this.searchLatency,
      socketPath: this.socketPath,
      logger,
    });
    this.server = await startRpcServer({
      socketPath: this.socketPath,
      logger,
      maxRequestBytes: cfg.daemon.maxRequestBytes,
      handlers,
    });
    if (cfg.ui.enabled) void this.console.open().catch((e) => this.recordError(e));
    for (const ws of engine.workspaces) if (ws.checkLater) void this.laterChecks.check(ws);
    // Claude Code projects that appear while running: their memory is found, watched and indexed.
    const claudeRefresh = new ClaudeMemoryRefresh(engine, async (ws, paths) => {
      for (const p of paths) await this.watcher?.watchPath(ws.name, p).catch((e) => this.recordError(e));
      await this.queue.sync(ws).catch((e) => this.recordError(e));
    });
    this.watcher = new FileWatcher({
      workspaces: engine.workspaces.map((w) => ({ name: w.name, target: w.target })),
      mode: cfg.daemon.watch,
      debounceMs: cfg.daemon.debounceMs,
      settleMs: cfg.daemon.settleMs,
      pollIntervalMs: cfg.daemon.pollIntervalMs,
      reconcileIntervalMs: cfg.daemon.reconcileIntervalMs,
      logger,
      onChanges: async (name, paths) => {
        claudeRefresh.onChanges(paths);
        await this.queue.sync(engine.workspace(name), { paths }).catch((e) => this.recordError(e));
      },
      onReconcile: async (name) => {
        await this.queue.sync(engine.workspace(name)).catch((e) => this.recordError(e));
      },
    });
    await this.watcher.start();
    // Startup reconcile: index whatever changed while the daemon was down (keyword first, fast);
    // then the chunk metadata and path index searches rank on are loaded (in steps: a large index
    // takes seconds), so the first search does not wait for them.
    for (const ws of engine.workspaces)
      void this.queue
        .sync(ws)
        .then(() => ws.store.warmChunkMetaInSteps())
        .then(() => ws.store.warmPathIndex())
        .then(() => this.topEntities.refresh(ws))
        .catch((e) => this.recordError(e));
    this.modelLoad = this.loadModel();
    this.scheduler.add({ name: "heartbeat", cron: cfg.schedule.heartbeat, run: () => runHeartbeat(this) });
    this.scheduler.add({ name: "consolidation", cron: cfg.schedule.consolidation, run: () => runMaintenance(this) });
    scheduleGitSync(this.gitSync, engine.workspaces, this.scheduler);
    logger.info(
      {
        socket: this.socketPath,
        workspaces: engine.workspaces.map((w) => w.root),
        watcher: this.watcher.status().mode,
      },
      "cortexd started",
    );
  }

  /** Loads the embedding model in the background; once ready, vectors are backfilled. */
  private async loadModel(): Promise<void> {
    this.modelLoading = true;
    try {
      await this.loadModelOnce();
    } finally {
      this.modelLoading = false;
    }
  }

  private async loadModelOnce(): Promise<void> {
    const selected = await selectProvider(this.engine.config.embedding, {
      dataDir: this.engine.dataDir,
      logger: this.logger,
    });
    if (this.stopping) {
      await selected.provider?.close();
      return;
    }
    await this.queue.drain();
    await this.engine.setProvider(selected);
    this.compactor.noteWork();
    if (selected.status.state === "error")
      this.recordError(new Error(selected.status.reason ?? "embedding model failed"));
    if (selected.provider) {
      // The vectors of what is indexed (the startup sync ran before this, keyword-only; the watcher
      // keeps the files in step): a sync of no paths embeds the chunks waiting, without scanning
      // the workspace again (at 100,000 files a scan held requests ~0.5 s).
      for (const ws of this.engine.workspaces) {
        void this.queue
          .sync(ws, { paths: [] })
          .then(() => ws.store.warmVectorSearch())
          .catch((e) => this.recordError(e));
      }
    }
  }

  /** Resolves when the model has loaded (or failed) and queued syncs are done: for tests and tools. */
  async settled(): Promise<void> {
    await this.modelLoad;
    await this.queue.drain();
  }

  /**
   * Heartbeat provider recovery: when vectors are off although a provider is configured, try to
   * load it again (backoff: 0, 1, 3, 7 … up to 64 skipped heartbeats between attempts). Once it
   * works, it is swapped in and the next sync backfills the keyword-only chunks. True when recovered.
   */
  async retryProvider(): Promise<boolean> {
    const cfg = this.engine.config.embedding;
    if (cfg.provider === "none" || this.engine.provider || this.modelLoading || this.stopping) return false;
    if (this.providerRetry.skip > 0) {
      this.providerRetry.skip--;
      return false;
    }
    const selected = await selectProvider(cfg, { dataDir: this.engine.dataDir, logger: this.logger });
    if (!selected.provider || this.stopping) {
      await selected.provider?.close();
      if (!this.stopping) await this.engine.setProvider(selected); // status shows the latest failure
      this.providerRetry.failures++;
      this.providerRetry.skip = Math.min(64, 2 ** this.providerRetry.failures - 1);
      return false;
    }
    await this.queue.drain();
    await this.engine.setProvider(selected);
    this.providerRetry = { failures: 0, skip: 0 };
    this.logger.warn({ model: selected.status.model }, "embedding provider recovered; backfilling vectors");
    return true;
  }

  /**
   * Heartbeat: is the model file still there? The loaded model keeps working without it (it is in
   * memory), but the next start could not load it. The built-in model is ours and is rebuilt; a
   * configured model is the user's: it is reported, never touched. Returns a problem, or null.
   */
  async checkModelFile(): Promise<string | null> {
    const st = this.engine.providerStatus;
    if (st.state !== "ready" || !st.file) return null;
    if (existsSync(st.file)) {
      delete st.warning;
      return null;
    }
    if (st.source === "builtin") {
      const { ensureBuiltinModel } = await import("../embed/builtin/ensure.js");
      await ensureBuiltinModel(modelsDir(this.engine.dataDir));
      this.logger.warn({ file: st.file }, "the built-in model file was deleted; rebuilt it");
      return null;
    }
    st.warning = `model file ${st.file} is gone (deleted or moved while cortexd runs): vectors continue from the loaded copy until the daemon restarts, then search is keyword-only until the file is back`;
    this.logger.warn({ file: st.file }, "embedding model file is gone");
    return st.warning;
  }

  recordHeartbeat(r: HeartbeatResult): void {
    this.lastHeartbeat = Date.parse(r.at);
    this.heartbeats.push(r);
    if (this.heartbeats.length > HEARTBEAT_HISTORY) this.heartbeats.shift();
  }

  watcherStatus(): WatcherStatus {
    return this.watcher?.status() ?? { mode: "off", events: 0, lastEventAt: null };
  }

  recordError(e: unknown): void {
    const message = errorMessage(e) ?? String(e);
    const last = this.errors.at(-1);
    if (last?.message === message) {
      last.at = new Date().toISOString(); // the same problem again: one entry, its latest time
      return;
    }
    this.errors.push({ at: new Date().toISOString(), message });
    if (this.errors.length > 50) this.errors.shift();
  }

  status(): CortexStatus {
    const restart = this.restartNeeded.size ? { restartNeeded: [...this.restartNeeded] } : {};
    return {
      ...restart,
      ...buildStatus({
        engine: this.engine,
        queue: this.queue,
        watcher: this.watcher?.status() ?? { mode: "off", events: 0, lastEventAt: null },
        schedule: this.scheduler.status(),
        recall: this.searchLatency,
        version: VERSION,
        startedAt: this.startedAt,
        socketPath: this.socketPath,
        lastHeartbeat: this.lastHeartbeat,
        heartbeats: this.heartbeats,
        consolidation: this.lastConsolidation ?? this.engine.workspaces.flatMap((w) => loadReports(w.store, 1)),
        errors: this.errors,
        gitSync: this.gitSync,
        hooks: readHookFailures(this.socketPath),
        topEntities: this.topEntities,
      }),
    };
  }

  /** Re-reads the config (SIGHUP): applies what can change live, reports what needs a restart. */
  reload(): { applied: string[]; restartNeeded: string[] } {
    const r = reloadConfig({
      engine: this.engine,
      logger: this.logger,
      ...(this.opts.configFile ? { file: this.opts.configFile } : {}),
      ...(this.opts.env ? { env: this.opts.env } : {}),
      // Switch models live: keyword search keeps answering while vectors are re-embedded through the cache.
      reloadModel: () => (this.modelLoad = this.modelLoad.then(() => this.loadModel())),
    });
    for (const key of r.restartNeeded) this.restartNeeded.add(key); // shown by status until a restart
    return r;
  }

  /** Config keys changed by a reload that only a restart applies. */
  private readonly restartNeeded = new Set<string>();

  /** Graceful stop: no new work, finish the current transaction, close the DB, remove the socket. */
  stop(reason: string): Promise<void> {
    if (this.stopping) return this.stopping;
    this.stopReason = reason;
    this.stopping = (async () => {
      this.logger.info({ reason }, "cortexd stopping");
      this.scheduler.stop();
      this.topEntities.close();
      this.laterChecks.stop();
      this.queue.close();
      await this.watcher?.close();
      await this.server?.close();
      await this.console?.close();
      this.queue.abort(); // a long (cold) sync stops at its next batch; the next start continues it
      await this.queue.drain();
      await this.modelLoad.catch(() => {});
      await this.engine.close();
      this.compactor.close();
      this.lock.release();
      this.dataLock?.release();
      this.resolveDone();
    })();
    return this.stopping;
  }

  /** Resolves when the daemon has stopped. */
  wait(): Promise<void> {
    return this.done;
  }
}
