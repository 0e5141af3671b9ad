import { MAX_RECENT_TEXT, type RecentSave, type StateStore } from "../session/state.js";
import { appendLines, KeyedLock, type AppendResult } from "./append.js";
import { findDuplicate } from "./dedupe.js";
import { rollOver } from "./roll-over.js";
import { fileHeader, formatEntry, localDate, targetKey, type SaveTarget } from "./entry.js";
import { redactSecrets } from "./redact.js";
import type { SaveResult } from "../rpc/protocol.js";
import { conflictNote, divertFromConflict } from "../multi-device/save-sidecar.js";
import type { Visibility } from "../visibility/visibility.js";

/** Which workspace a write goes to (a WorkspaceEngine fits). */
export interface WriteTarget {
  root: string;
  /** Namespace (the state file and dedupe are per namespace). */
  name: string;
  /** Per-device daily logs: the day's log is memory/YYYY-MM-DD.<device>.md. */
  device?: string;
  /** A team workspace: each saved bullet carries this tag (who wrote it, from which device). */
  authorTag?: string;
}

/** What a file sync needs from the writer (see multi-device/git-sync.ts). */
export interface WriteHooks {
  /** Runs a write; a git merge in the workspace holds it back until the merge is done. */
  around<T>(ws: WriteTarget, fn: () => Promise<T>): Promise<T>;
  /** A file was appended to (`key` relative to the root). */
  written(ws: WriteTarget, key: string): void;
  /** Whether git holds `key` unmerged (undefined: not known, the file's content decides). */
  conflicted?(ws: WriteTarget, key: string): boolean | undefined;
}

/** One entry to write: its markdown lines and the text compared for dedupe. Already redacted. */
export interface PendingEntry {
  lines: string[];
  dedupeText: string;
  /** A captured turn's request: the turn is a duplicate only when this is one too (dedupe.ts). */
  dedupeLead?: string;
  /** Default "save". Checkpoints are deduplicated against checkpoints only. */
  kind?: "save" | "capture" | "checkpoint";
}

export interface WriteOutcome {
  /** Index key of the file ("memory/2026-11-29.md", "MEMORY.md"). */
  key: string;
  absPath: string;
  /** The file meant had git conflict markers: `key` is its sidecar (see multi-device/save-sidecar.ts). */
  conflicted?: string;
  /** Entries written, with their 1-based first/last line when known. */
  written: { entry: PendingEntry; startLine?: number; endLine?: number }[];
  /** Entries skipped as duplicates of a recent write ("path:line"). */
  duplicates: { entry: PendingEntry; of: string }[];
  append?: AppendResult;
}

export interface SaveParams {
  text: string;
  /** Who may see it (default private: a save from the user's own session). A team workspace's saves are shared. */
  visibility?: Visibility;
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
  /** The day's log (or MEMORY.md) has git conflict markers: the save went to a sidecar instead. */
  conflicted?: string;
}

/** The memory.save answer for a write (`indexed`: whether the file was indexed before the reply). */
export function saveResult(out: SaveOutcome, indexed?: boolean, notIndexed?: string): SaveResult {
  return {
    stored: out.stored,
    path: out.path,
    ...(out.startLine !== undefined ? { startLine: out.startLine, endLine: out.endLine! } : {}),
    redactions: out.redactions,
    ...(out.redactedKinds.length ? { redactedKinds: out.redactedKinds } : {}),
    ...(out.duplicateOf ? { duplicateOf: out.duplicateOf } : {}),
    ...(indexed !== undefined ? { indexed } : {}),
    ...(notIndexed ? { notIndexed } : {}),
    ...(out.conflicted ? { conflict: conflictNote(out.conflicted, out.path) } : {}),
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
    /** The scheduled git sync: writes wait while it merges, and it commits the files written. */
    private readonly hooks?: WriteHooks,
    /** Whether a file has conflict markers when the index knows it without a read (memory-files/indexed-conflict.ts). */
    private readonly conflictKnown?: (ws: WriteTarget, key: string) => boolean | undefined,
  ) {}

  /** memory.save: one bullet in today's daily log (or MEMORY.md). */
  async save(ws: WriteTarget, p: SaveParams): Promise<SaveOutcome> {
    const target = p.target ?? "daily";
    const red = redactSecrets(p.text.trim());
    const tags = ws.authorTag ? [...(p.tags ?? []), ws.authorTag] : p.tags;
    const lines = formatEntry(red.text, {
      ...(p.importance !== undefined ? { importance: p.importance } : {}),
      ...(tags ? { tags } : {}),
      ...(ws.authorTag ? {} : { visibility: p.visibility ?? "private" }),
    });
    const out = await this.write(ws, target, localDate(this.clock()), [{ lines, dedupeText: red.text }]);
    const base = {
      path: out.key,
      absPath: out.absPath,
      redactions: red.count,
      redactedKinds: red.kinds,
      ...(out.conflicted ? { conflicted: out.conflicted } : {}),
    };
    const dup = out.duplicates[0];
    if (dup) return { ...base, stored: false, duplicateOf: dup.of };
    const w = out.written[0]!;
    return {
      ...base,
      stored: true,
      ...(w.startLine !== undefined ? { startLine: w.startLine, endLine: w.endLine! } : {}),
    };
  }

  /**
   * Writes entries to one file in one append. Dedupe is decided synchronously before the first
   * await (a reservation is recorded at once), so concurrent identical writes cannot both pass.
   */
  async write(
    ws: WriteTarget,
    target: SaveTarget,
    date: string,
    entries: readonly PendingEntry[],
  ): Promise<WriteOutcome> {
    return this.hooks
      ? this.hooks.around(ws, () => this.writeNow(ws, target, date, entries))
      : this.writeNow(ws, target, date, entries);
  }

  private async writeNow(
    ws: WriteTarget,
    target: SaveTarget,
    date: string,
    entries: readonly PendingEntry[],
  ): Promise<WriteOutcome> {
    // A file in a git conflict is never appended to: the entry goes to its sidecar.
    const wanted = rollOver(ws.root, targetKey(target, date, ws.device));
    const { key, absPath, conflicted } = divertFromConflict(
      ws.root,
      wanted,
      this.hooks?.conflicted?.(ws, wanted) ?? this.conflictKnown?.(ws, wanted),
    );
    const st = this.state.get(ws.name);
    const now = this.clock();
    const duplicates: { entry: PendingEntry; rec: RecentSave }[] = [];
    const reserved: { entry: PendingEntry; rec: RecentSave }[] = [];
    for (const entry of entries) {
      const dup = findDuplicate(st.recentSaves, entry.dedupeText, now, {
        kind: entry.kind ?? "save",
        ...(entry.dedupeLead !== undefined ? { lead: entry.dedupeLead } : {}),
      });
      if (dup) {
        duplicates.push({ entry, rec: dup });
        continue;
      }
      const rec: RecentSave = {
        at: now,
        text: entry.dedupeText.slice(0, MAX_RECENT_TEXT),
        ...(entry.dedupeLead !== undefined ? { lead: entry.dedupeLead.slice(0, MAX_RECENT_TEXT) } : {}),
        where: key,
        ...(entry.kind && entry.kind !== "save" ? { kind: entry.kind } : {}),
      };
      st.recentSaves.push(rec);
      reserved.push({ entry, rec });
    }
    const dupsOut = async () => {
      await Promise.all(duplicates.map((d) => this.inflight.get(d.rec)));
      return duplicates.map((d) => ({ entry: d.entry, of: d.rec.where }));
    };
    const where = { key, absPath, ...(conflicted ? { conflicted } : {}) };
    if (reserved.length === 0) return { ...where, written: [], duplicates: await dupsOut() };
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
    this.hooks?.written(ws, key);
    return { ...where, written, duplicates: await dupsOut(), append };
  }
}
