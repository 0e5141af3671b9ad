import { closeSync, fdatasyncSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import type { RecentSave } from "./state.js";

/**
 * The recent saves (dedupe records) of a namespace, in `<namespace>.saves.jsonl` beside its state
 * file: one JSON line appended (and fdatasync'ed) per new save, so a save costs the same however
 * many came before it. Rewritten whole (temp file, fsync, rename) only when most of its lines are
 * records that have left the dedupe window: compaction, amortised over many saves.
 */
export class SavesJournal {
  /** Records already in the file (by identity). */
  private written = new WeakSet<RecentSave>();
  private lines = 0;

  constructor(readonly file: string) {}

  /** The records in the file (a torn last line, from a crash mid-append, is left out). */
  load(): RecentSave[] {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw e;
    }
    const out: RecentSave[] = [];
    for (const line of text.split("\n")) {
      if (!line) continue;
      try {
        const r = JSON.parse(line) as RecentSave;
        if (typeof r === "object" && r !== null && typeof r.at === "number" && typeof r.text === "string") {
          out.push(r);
          this.written.add(r);
        }
      } catch {
        // a torn line
      }
    }
    this.lines = out.length;
    return out;
  }

  /** Appends the records not yet in the file; compacts when it holds mostly expired ones. */
  save(live: readonly RecentSave[]): void {
    if (this.lines > 1000 && this.lines > 2 * live.length) return this.compact(live);
    const fresh = live.filter((r) => !this.written.has(r));
    if (fresh.length === 0) return;
    const fd = openSync(this.file, "a", 0o600);
    try {
      writeSync(fd, fresh.map((r) => JSON.stringify(r)).join("\n") + "\n");
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    for (const r of fresh) this.written.add(r);
    this.lines += fresh.length;
  }

  private compact(live: readonly RecentSave[]): void {
    const tmp = `${this.file}.${process.pid}.tmp`;
    const fd = openSync(tmp, "w", 0o600);
    try {
      writeSync(fd, live.map((r) => JSON.stringify(r) + "\n").join(""));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
    this.written = new WeakSet(live);
    this.lines = live.length;
  }
}
