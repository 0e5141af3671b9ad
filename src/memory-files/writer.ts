import { MAX_RECENT_TEXT, type RecentSave, type StateStore } from "../session/state.js";
import { appendLines, KeyedLock, type AppendResult } from "./append.js";
import { findDuplicate } from "./dedupe.js";
import { fileHeader, formatEntry, localDate, targetKey, targetPath, type SaveTarget } from "./entry.js";
import { redactSecrets } from "./redact.js";
import type { SaveResult } from "../rpc/protocol.js";

/** Which workspace a write goes to (a WorkspaceEngine fits). */
export interface WriteTarget {
  root: string;
  /** Namespace (the state file and dedupe are per namespace). */
  name: string;
}

/** One entry to write: its markdown lines and the text compared for dedupe. Already redacted. */
export interface PendingEntry {
  lines: string[];
  dedupeText: string;
  /** Default "save". Checkpoints are deduplicated against checkpoints only. */
  kind?: "save" | "capture" | "checkpoint";
}

export interface WriteOutcome {
  /** Index key of the file ("memory/2026-11-29.md", "MEMORY.md"). */
  key: string;
  absPath: string;
  /** Entries written, with their 1-based first/last line when known. */
  written: { entry: PendingEntry; startLine?: number; endLine?: number }[];
  /** Entries skipped as duplicates of a recent write ("path:line"). */
  duplicates: { entry: PendingEntry; of: string }[];
  append?: AppendResult;
}

export interface SaveParams {
  text: string;
  target?: SaveTarget;
  importance?: number;
  tags?: string[];
}

export interface SaveOutcome {
  stored: boolean;
  path: string;
  absPath: string;
  startLine?: number;
  endLine?: number;
  redactions: number;
  redactedKinds: string[];
  duplicateOf?: string;
}

/** The memory.save answer for a write (`indexed`: whether the file was indexed before the reply). */
export function saveResult(out: SaveOutcome, indexed?: boolean): SaveResult {
  return {
    stored: out.stored,
    path: out.path,
    ...(out.startLine !== undefined ? { startLine: out.startLine, endLine: out.endLine! } : {}),
    redactions: out.redactions,
    ...(out.redactedKinds.length ? { redactedKinds: out.redactedKinds } : {}),
    ...(out.duplicateOf ? { duplicateOf: out.duplicateOf } : {}),
    ...(indexed !== undefined ? { indexed } : {}),
  };
}

/**
 * Every write cortexd makes to memory files goes through here: redaction (by the caller, see
 * prepare), dedupe against recent writes of the namespace, one O_APPEND write per call under a
 * per-file lock, and the dedupe record persisted in the state file.
 */
export class MemoryWriter {
  readonly lock = new KeyedLock();
  /** Writes in flight: a duplicate of one waits for it, to report where it landed. */
  private readonly inflight = new Map<RecentSave, Promise<unknown>>();

  constructor(
    readonly state: StateStore,
    private readonly clock: () => number = Date.now,
  ) {}

  /** memory.save: one bullet in today's daily log (or MEMORY.md). */
  async save(ws: WriteTarget, p: SaveParams): Promise<SaveOutcome> {
    const target = p.target ?? "daily";
    const red = redactSecrets(p.text.trim());
    const lines = formatEntry(red.text, { ...(p.importance !== undefined ? { importance: p.importance } : {}), ...(p.tags ? { tags: p.tags } : {}) });
    const out = await this.write(ws, target, localDate(this.clock()), [{ lines, dedupeText: red.text }]);
    const base = { path: out.key, absPath: out.absPath, redactions: red.count, redactedKinds: red.kinds };
    const dup = out.duplicates[0];
    if (dup) return { ...base, stored: false, duplicateOf: dup.of };
    const w = out.written[0]!;
    return { ...base, stored: true, ...(w.startLine !== undefined ? { startLine: w.startLine, endLine: w.endLine! } : {}) };
  }

  /**
   * Writes entries to one file in one append. Dedupe is decided synchronously before the first
   * await (a reservation is recorded at once), so concurrent identical writes cannot both pass.
   */
  async write(ws: WriteTarget, target: SaveTarget, date: string, entries: readonly PendingEntry[]): Promise<WriteOutcome> {
    const key = targetKey(target, date);
    const absPath = targetPath(ws.root, target, date);
    const st = this.state.get(ws.name);
    const now = this.clock();
    const duplicates: { entry: PendingEntry; rec: RecentSave }[] = [];
    const reserved: { entry: PendingEntry; rec: RecentSave }[] = [];
    for (const entry of entries) {
      const dup = findDuplicate(st.recentSaves, entry.dedupeText, now, { kind: entry.kind ?? "save" });
      if (dup) {
        duplicates.push({ entry, rec: dup });
        continue;
      }
      const rec: RecentSave = { at: now, text: entry.dedupeText.slice(0, MAX_RECENT_TEXT), where: key, ...(entry.kind && entry.kind !== "save" ? { kind: entry.kind } : {}) };
      st.recentSaves.push(rec);
      reserved.push({ entry, rec });
    }
    const dupsOut = async () => {
      await Promise.all(duplicates.map((d) => this.inflight.get(d.rec)));
      return duplicates.map((d) => ({ entry: d.entry, of: d.rec.where }));
    };
    if (reserved.length === 0) return { key, absPath, written: [], duplicates: await dupsOut() };
    let append: AppendResult;
    let release!: () => void;
    const done = new Promise<void>((r) => (release = r));
    for (const r of reserved) this.inflight.set(r.rec, done);
    try {
      append = await this.lock.run(absPath, () =>
        appendLines(
          absPath,
          reserved.flatMap((r) => r.entry.lines),
          { header: fileHeader(target, date), root: ws.root },
        ),
      );
    } catch (e) {
      st.recentSaves = st.recentSaves.filter((r) => !reserved.some((x) => x.rec === r));
      for (const r of reserved) this.inflight.delete(r.rec);
      release();
      throw e;
    }
    const written: WriteOutcome["written"] = [];
    let line = append.startLine;
    for (const { entry, rec } of reserved) {
      if (line !== undefined) {
        const endLine = line + entry.lines.length - 1;
        rec.where = `${key}:${line}`;
        written.push({ entry, startLine: line, endLine });
        line = endLine + 1;
      } else written.push({ entry });
    }
    for (const r of reserved) this.inflight.delete(r.rec);
    release(); // duplicates waiting on these entries can now say where they are
    try {
      this.state.save(ws.name);
    } catch {
      // The entry is in the file; only the dedupe record could not be persisted (e.g. the data dir
      // is full or read-only). It stays in memory, and a failure here must not report the save as lost.
    }
    return { key, absPath, written, duplicates: await dupsOut(), append };
  }
}
