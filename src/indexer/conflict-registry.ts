import type { IndexStore } from "../index/repos/store.js";

const META_KEY = "conflicted_files";
/** At most this many paths are remembered (a workspace with more has a bigger problem than a list). */
const MAX_PATHS = 1000;

/**
 * The memory files of one index that hold git conflict markers. A file is marked whenever the
 * indexer reads it, and the list is kept in the index's meta table: a file that has not changed
 * since (and so is not read again, even after a restart) stays flagged until it is resolved.
 */
export class ConflictRegistry {
  private paths: Set<string> | null = null;
  private dirty = false;

  constructor(private readonly store: () => IndexStore) {}

  private load(): Set<string> {
    if (this.paths) return this.paths;
    let list: unknown;
    try {
      list = JSON.parse(this.store().getMeta(META_KEY) ?? "[]");
    } catch {
      list = [];
    }
    this.paths = new Set(Array.isArray(list) ? list.filter((p): p is string => typeof p === "string") : []);
    return this.paths;
  }

  /** Records what a read of `path` found (blocks = 0: clean). */
  mark(path: string, blocks: number): void {
    const set = this.load();
    if (blocks > 0 && !set.has(path) && set.size < MAX_PATHS) {
      set.add(path);
      this.dirty = true;
    } else if (blocks === 0 && set.delete(path)) this.dirty = true;
  }

  move(from: string, to: string): void {
    const set = this.load();
    if (set.delete(from)) {
      set.add(to);
      this.dirty = true;
    }
  }

  /** Writes the list to the index when it changed (inside the sync's transaction). */
  persist(): void {
    if (!this.dirty || !this.paths) return;
    this.store().setMeta(META_KEY, JSON.stringify([...this.paths].sort()));
    this.dirty = false;
  }

  /** Whether the reads so far found markers in `path`; undefined when the list is full (it may be left out). */
  has(path: string): boolean | undefined {
    const set = this.load();
    return set.has(path) ? true : set.size >= MAX_PATHS ? undefined : false;
  }

  /** Conflicted files, sorted. */
  list(): string[] {
    return [...this.load()].sort();
  }

  /** After the indexer switched connections (reopened read-write): read the list again. */
  reset(): void {
    this.paths = null;
    this.dirty = false;
  }
}
