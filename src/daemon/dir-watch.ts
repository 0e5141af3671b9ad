import { EventEmitter } from "node:events";
import { readdirSync, realpathSync, statSync, watch, type Dirent, type FSWatcher } from "node:fs";
import { join } from "node:path";

export type DirEvent = "add" | "change" | "unlink" | "addDir" | "unlinkDir";

/**
 * Watches a directory tree with one native watch per directory (inotify, FSEvents, …), never one
 * per file: 100,000 memory files in a handful of directories cost a handful of watches and almost
 * no memory (a per-file watcher keeps an object per file; docs/performance.md, "Watching"). A directory watch
 * reports its files' changes; new subdirectories are watched as they appear (and their files
 * reported), removed ones are dropped. Emits "all" (event, absolute path), "error" and "ready".
 * Events are hints: the indexer stats each reported path, so add and change need not be told apart.
 */
export class DirWatcher extends EventEmitter {
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly realDirs = new Set<string>();
  private closed = false;

  constructor(
    private readonly root: string,
    private readonly ignored: (path: string) => boolean,
  ) {
    super();
  }

  /**
   * Watches the tree (synchronously walks its directories), then emits "ready". A root that is a
   * file is watched as such; a root that does not exist (yet) is left to the periodic reconcile.
   */
  start(): void {
    const st = statSync(this.root, { throwIfNoEntry: false });
    if (st?.isFile()) {
      const w = watch(this.root, { persistent: true }, () => this.emit("all", "change", this.root));
      w.on("error", () => this.emit("all", "unlinkDir", this.root));
      this.watchers.set(this.root, w);
    } else if (st?.isDirectory()) this.watchTree(this.root, false);
    queueMicrotask(() => this.emit("ready"));
  }

  /** Directories watched. */
  get size(): number {
    return this.watchers.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    this.realDirs.clear();
  }

  /** Watches a directory and its subdirectories; with `report`, its files are announced (a new directory). */
  private watchTree(dir: string, report: boolean): void {
    if (this.closed || this.watchers.has(dir)) return;
    let real: string;
    try {
      real = realpathSync(dir);
    } catch {
      return;
    }
    if (this.realDirs.has(real)) return; // a symlink loop or a directory reached twice
    let w: FSWatcher;
    try {
      w = watch(dir, { persistent: true }, (event, name) => this.onEvent(dir, event, name));
    } catch (e) {
      if (dir === this.root) throw e;
      this.emit("error", e);
      return;
    }
    w.on("error", (err: NodeJS.ErrnoException) => {
      // The directory went away (or became unreadable): drop it and let the owner reconcile.
      if (err.code === "ENOENT" || err.code === "EPERM") this.dropTree(dir);
      else this.emit("error", err);
    });
    this.watchers.set(dir, w);
    this.realDirs.add(real);
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    // The entries' types come with the listing: a stat only for a link or an unknown type (100,000
    // files in one directory took ~1.2 s of held event loop at the start when each was stat'ed).
    for (const entry of entries) {
      if (entry.isFile() && !report) continue;
      const p = join(dir, entry.name);
      if (this.ignored(p)) continue;
      const known = entry.isFile() || entry.isDirectory();
      const st = known ? entry : statSync(p, { throwIfNoEntry: false });
      if (st?.isDirectory()) this.watchTree(p, report);
      else if (st?.isFile() && report) this.emit("all", "add", p);
    }
  }

  private dropTree(dir: string): void {
    const prefix = dir + "/";
    for (const [d, w] of [...this.watchers]) {
      if (d === dir || d.startsWith(prefix)) {
        w.close();
        this.watchers.delete(d);
      }
    }
    // Real paths of dropped directories are forgotten lazily: rebuild the set from what is left.
    this.realDirs.clear();
    for (const d of this.watchers.keys()) {
      try {
        this.realDirs.add(realpathSync(d));
      } catch {
        /* gone too: dropped by its own error */
      }
    }
    this.emit("all", "unlinkDir", dir);
  }

  private onEvent(dir: string, event: string, name: string | Buffer | null): void {
    if (this.closed) return;
    if (name === null) {
      // The platform could not say what changed (e.g. event overflow): ask for a full reconcile.
      this.emit("all", "unlinkDir", dir);
      return;
    }
    const p = join(dir, name.toString());
    if (this.ignored(p)) return;
    const st = statSync(p, { throwIfNoEntry: false });
    if (st?.isDirectory()) {
      if (!this.watchers.has(p)) {
        this.watchTree(p, true);
        this.emit("all", "addDir", p);
      }
      return;
    }
    if (!st) {
      if (this.watchers.has(p)) this.dropTree(p);
      else this.emit("all", "unlink", p);
      return;
    }
    if (st.isFile()) this.emit("all", event === "rename" ? "add" : "change", p);
  }
}
