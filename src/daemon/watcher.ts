import { statSync } from "node:fs";
import { relative, sep } from "node:path";
import type { Logger } from "pino";
import type { ScanTarget } from "../workspace/scan.js";
import { DirWatcher } from "./dir-watch.js";
import { errorMessage } from "../util/error-message.js";
import { isIgnoredSegment, isMemoryDir, isMemoryRootEntry } from "../workspace/layout.js";

export interface WatchedWorkspace {
  name: string;
  target: ScanTarget;
}

export interface FileWatcherOptions {
  workspaces: readonly WatchedWorkspace[];
  mode: "auto" | "poll" | "off";
  debounceMs: number;
  settleMs: number;
  pollIntervalMs: number;
  reconcileIntervalMs: number;
  logger: Logger;
  /** Index these changed paths of a workspace. */
  onChanges: (workspace: string, paths: string[]) => Promise<void>;
  /** Compare the whole workspace with the index (cheap when nothing changed). */
  onReconcile: (workspace: string) => Promise<void>;
}

export interface WatcherStatus {
  mode: "watching" | "polling" | "off";
  reason?: string;
  events: number;
  lastEventAt: string | null;
}

/** What to ignore under a workspace root: only curated files, memory/ and sessions/ matter. */
function rootFilter(root: string): (path: string) => boolean {
  return (path: string) => {
    const rel = relative(root, path);
    if (rel === "") return false;
    if (rel.startsWith("..")) return true;
    const parts = rel.split(sep);
    if (parts.some(isIgnoredSegment)) return true;
    return parts.length === 1 ? !isMemoryRootEntry(parts[0]!) : !isMemoryDir(parts[0]!);
  };
}

function treeFilter(base: string): (path: string) => boolean {
  return (path: string) => {
    const rel = relative(base, path);
    if (rel === "" || rel.startsWith("..")) return false;
    return rel.split(sep).some(isIgnoredSegment);
  };
}

function stamp(path: string): string {
  const st = statSync(path, { throwIfNoEntry: false });
  return st ? `${st.size}:${st.mtimeMs}` : "gone";
}

/**
 * Watches every workspace's memory files (one native watch per directory, see dir-watch.ts) and
 * hands changed paths to the indexer after
 * a debounce and a settle check (size and mtime unchanged for settleMs, so half-written files wait).
 * If watching fails (EMFILE, ENOSPC, any watcher error) it falls back to polling with periodic full
 * reconciles and says so in its status: it never stops silently.
 */
export class FileWatcher {
  private watchers: DirWatcher[] = [];
  private mode: WatcherStatus["mode"] = "off";
  private reason: string | undefined;
  private events = 0;
  private lastEventAt: number | null = null;
  private readonly pending = new Map<string, Set<string>>();
  private debounce: NodeJS.Timeout | null = null;
  /** When the oldest change not yet handed to the indexer arrived (null: none waiting). */
  private waitingSince: number | null = null;
  private timers: NodeJS.Timeout[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private closed = false;
  private fallingBack = false;

  constructor(private readonly opts: FileWatcherOptions) {}

  async start(): Promise<void> {
    if (this.opts.mode === "off") {
      this.mode = "off";
      this.reason = 'daemon.watch is "off"';
      return;
    }
    if (this.opts.mode === "poll") {
      this.startPolling('daemon.watch is "poll"');
      return;
    }
    try {
      await Promise.all(this.opts.workspaces.map((w) => this.watchWorkspace(w)));
      // A watcher error while the trees were walked has already switched to polling: keep that.
      if (this.fallingBack || this.closed) return;
      this.mode = "watching";
      this.every(this.opts.reconcileIntervalMs, () => this.reconcileAll());
    } catch (e) {
      await this.fallBack(e as Error);
    }
  }

  status(): WatcherStatus {
    return {
      mode: this.mode,
      ...(this.reason ? { reason: this.reason } : {}),
      events: this.events,
      lastEventAt: this.lastEventAt ? new Date(this.lastEventAt).toISOString() : null,
    };
  }

  /** Resolves when queued changes have been handed over and indexed. */
  async idle(): Promise<void> {
    await this.flushing;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.debounce) clearTimeout(this.debounce);
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await Promise.all(this.watchers.map((w) => w.close().catch(() => {})));
    this.watchers = [];
    await this.flushing.catch(() => {});
  }

  private async watchWorkspace(ws: WatchedWorkspace): Promise<void> {
    const trees: [string, (p: string) => boolean][] = [
      [ws.target.root, rootFilter(ws.target.root)],
      ...(ws.target.transcriptDirs ?? []).map((d): [string, (p: string) => boolean] => [d, treeFilter(d)]),
      ...(ws.target.extraPaths ?? []).map((d): [string, (p: string) => boolean] => [d, treeFilter(d)]),
      ...(ws.target.claudeMemory ?? []).map((d): [string, (p: string) => boolean] => [d, treeFilter(d)]),
      // Claude Code's projects dir: not twice when it is a transcript dir too (that watch reports its .md files).
      ...(ws.target.claudeProjects && !ws.target.transcriptDirs?.includes(ws.target.claudeProjects.dir)
        ? [[ws.target.claudeProjects.dir, treeFilter(ws.target.claudeProjects.dir)] as [string, (p: string) => boolean]]
        : []),
    ];
    for (const [base, ignored] of trees) await this.watchTree(ws.name, base, ignored);
  }

  /** Watches one more tree (or file) of a workspace, e.g. a CLAUDE.md found while running; polling covers it already. */
  async watchPath(workspace: string, base: string): Promise<void> {
    if (this.closed || this.mode !== "watching") return;
    await this.watchTree(workspace, base, treeFilter(base));
  }

  private async watchTree(workspace: string, base: string, ignored: (p: string) => boolean): Promise<void> {
    const w = new DirWatcher(base, ignored);
    this.watchers.push(w);
    w.on("all", (event: string, path: string) => this.onEvent(workspace, event, path));
    w.on("error", (err: Error) => void this.fallBack(err));
    const ready = new Promise<void>((resolve) => w.once("ready", () => resolve()));
    w.start();
    await ready;
  }

  private onEvent(workspace: string, event: string, path: string): void {
    if (this.closed) return;
    this.events++;
    this.lastEventAt = Date.now();
    if (event === "addDir") return;
    if (event === "unlinkDir") {
      void this.enqueueReconcile(workspace);
      return;
    }
    let set = this.pending.get(workspace);
    if (!set) this.pending.set(workspace, (set = new Set()));
    set.add(path);
    this.schedule(this.opts.debounceMs);
  }

  /**
   * Trailing debounce with a ceiling: a file written more often than the debounce (a transcript
   * streamed line by line) is still indexed at least every max(2 s, 4 × debounce).
   */
  private schedule(delay: number): void {
    const now = Date.now();
    this.waitingSince ??= now;
    const ceiling = this.waitingSince + Math.max(2000, 4 * this.opts.debounceMs);
    delay = Math.max(0, Math.min(delay, ceiling - now));
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = null;
      this.waitingSince = null;
      this.flushing = this.flushing
        .then(() => this.flush())
        .catch((e) => this.opts.logger.error({ err: errorMessage(e) }, "indexing changes failed"));
    }, delay);
  }

  /** Settle check, then hand the stable paths to the indexer; unstable ones wait for another round. */
  private async flush(): Promise<void> {
    const batch = [...this.pending.entries()];
    this.pending.clear();
    const before = new Map<string, string>();
    for (const [, paths] of batch) for (const p of paths) before.set(p, stamp(p));
    if (this.opts.settleMs > 0) await new Promise((r) => setTimeout(r, this.opts.settleMs));
    for (const [workspace, paths] of batch) {
      const ready: string[] = [];
      for (const p of paths) {
        if (stamp(p) === before.get(p)) ready.push(p);
        else {
          let set = this.pending.get(workspace);
          if (!set) this.pending.set(workspace, (set = new Set()));
          set.add(p); // still being written
        }
      }
      if (ready.length && !this.closed) await this.opts.onChanges(workspace, ready);
    }
    if (this.pending.size && !this.closed) this.schedule(Math.max(this.opts.debounceMs, this.opts.settleMs));
  }

  private enqueueReconcile(workspace: string): Promise<void> {
    this.flushing = this.flushing
      .then(() => (this.closed ? undefined : this.opts.onReconcile(workspace)))
      .catch((e) => this.opts.logger.error({ err: errorMessage(e), workspace }, "reconcile failed"));
    return this.flushing;
  }

  private async reconcileAll(): Promise<void> {
    for (const w of this.opts.workspaces) await this.enqueueReconcile(w.name);
  }

  private every(ms: number, fn: () => Promise<void>): void {
    const t = setInterval(() => void fn(), ms);
    t.unref();
    this.timers.push(t);
  }

  private startPolling(reason: string): void {
    this.mode = "polling";
    this.reason = reason;
    this.every(this.opts.pollIntervalMs, () => this.reconcileAll());
  }

  /** Any watcher failure: stop watching, poll instead, catch up now, and say why in status. */
  private async fallBack(err: Error): Promise<void> {
    if (this.fallingBack || this.mode === "polling" || this.closed) return;
    // Set before the first await: a second error while the watchers close starts no second timer.
    this.fallingBack = true;
    const code = (err as NodeJS.ErrnoException).code;
    const reason = `file watching failed (${code ?? err.message}); polling every ${this.opts.pollIntervalMs} ms instead`;
    this.opts.logger.warn({ err: err.message, code }, "file watching failed; falling back to polling");
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    const ws = this.watchers;
    this.watchers = [];
    await Promise.all(ws.map((w) => w.close().catch(() => {})));
    this.startPolling(reason);
    void this.reconcileAll();
  }

  /** For tests and diagnostics: the periodic timers (reconcile or poll) running. */
  get timerCount(): number {
    return this.timers.length;
  }

  /** For tests and diagnostics: the live directory watchers (one per watched tree). */
  get nativeWatchers(): readonly DirWatcher[] {
    return this.watchers;
  }
}
