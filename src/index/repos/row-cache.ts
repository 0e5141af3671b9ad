import type Database from "better-sqlite3";
import { CommitWatch } from "../db/db-generation.js";

/** What a string of text holds in V8's heap: one byte a character when every one is Latin-1, else two. */
export function stringBytes(text: string): number {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) return 2 * text.length;
  return text.length;
}

/** An entry: the value, what it counts against the bound, and the owner's stamp when it was read. */
interface Entry<V> {
  value: V;
  bytes: number;
  stamp: number;
}

/**
 * Rows of the index recently read, kept in memory up to a byte bound (least recently used first
 * out), so that a search reading the same chunk's text or passage blob again takes it from here
 * instead of running a statement: the chunks a recall reads recur across different queries.
 * Nothing is kept of an answer to a query; a row is a row of the index, read back as it is.
 *
 * It follows the one rule of the index's in-memory copies (docs/architecture.md): its owner drops
 * what its own connection writes (drop, or a stamp that no longer matches, see `valid`), a commit
 * by another connection empties it, and rows read inside a transaction are not kept (a rollback
 * could take them back).
 */
export class RowCache<V> {
  private readonly entries = new Map<number, Entry<V>>();
  private readonly commits: CommitWatch;
  private used = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly maxBytes: number,
  ) {
    this.commits = new CommitWatch(db);
    this.commits.mark(); // empty now: what another connection commits from here on empties it again
  }

  /**
   * The cached values of `ids` whose stamp `valid` accepts (others are dropped), and the ids left
   * to read. Checks once for another connection's commit first.
   */
  take(
    ids: readonly number[],
    valid: (value: V, stamp: number) => boolean = () => true,
  ): { hits: Map<number, V>; missing: number[] } {
    const hits = new Map<number, V>();
    const missing: number[] = [];
    const version = this.commits.read();
    if (this.commits.changed(version)) {
      this.clear();
      this.commits.mark(version);
    }
    for (const id of ids) {
      const e = this.entries.get(id);
      if (e && valid(e.value, e.stamp)) {
        // Most recently used goes last (Map keeps insertion order).
        this.entries.delete(id);
        this.entries.set(id, e);
        hits.set(id, e.value);
      } else {
        if (e) this.drop(id);
        missing.push(id);
      }
    }
    return { hits, missing };
  }

  /** Keeps a row just read (not inside a transaction), evicting the least recently used past the bound. */
  put(id: number, value: V, bytes: number, stamp = 0): void {
    if (this.db.inTransaction || bytes > this.maxBytes) return;
    this.drop(id);
    this.entries.set(id, { value, bytes, stamp });
    this.used += bytes;
    for (const [old, e] of this.entries) {
      if (this.used <= this.maxBytes) break;
      this.entries.delete(old);
      this.used -= e.bytes;
    }
  }

  drop(id: number): void {
    const e = this.entries.get(id);
    if (!e) return;
    this.entries.delete(id);
    this.used -= e.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.used = 0;
  }

  /** Rows and bytes held (status, tests). */
  get size(): { rows: number; bytes: number } {
    return { rows: this.entries.size, bytes: this.used };
  }
}
