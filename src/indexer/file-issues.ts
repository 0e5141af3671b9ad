import type { Logger } from "pino";
import { summarizeIssues, type IssueSummary, type RepairedFile, type SkippedFile } from "../workspace/issues.js";

/** A file's size and mtime: a skip is remembered for exactly this version of the file. */
export type Stamp = `${number}:${number}`;
export const stampOf = (f: { size: number; mtimeMs: number }): Stamp => `${f.size}:${f.mtimeMs}`;

export interface IssueUpdate {
  /** A full sync replaces everything; a targeted one only the entries of `paths`. */
  full: boolean;
  paths: readonly string[];
  skipped: readonly SkippedFile[];
  repaired: readonly RepairedFile[];
  /** Stamps of skipped files that were looked at (those can be passed over unread while unchanged). */
  stamps: ReadonlyMap<string, Stamp>;
}

/**
 * The files of one workspace the index currently passes over (skipped) or indexed with a loss
 * (repaired), with their reasons: what status counts. A file is logged (warn) when it first becomes
 * an issue or its reason changes, not on every sync; and a skipped file whose size and mtime have not
 * changed is not read again.
 */
export class FileIssues {
  private skipped = new Map<string, SkippedFile & { stamp?: Stamp }>();
  private repaired = new Map<string, RepairedFile>();

  constructor(private readonly logger?: Logger) {}

  /** The remembered skip of this exact file version, if any. */
  knownSkip(file: { path: string; size: number; mtimeMs: number }): SkippedFile | undefined {
    const s = this.skipped.get(file.path);
    if (!s || s.stamp !== stampOf(file)) return undefined;
    return { path: s.path, kind: s.kind, reason: s.reason };
  }

  update(u: IssueUpdate): void {
    const skipped = u.full ? new Map<string, SkippedFile & { stamp?: Stamp }>() : new Map(this.skipped);
    const repaired = u.full ? new Map<string, RepairedFile>() : new Map(this.repaired);
    if (!u.full) {
      for (const p of u.paths) {
        skipped.delete(p);
        repaired.delete(p);
      }
    }
    for (const s of u.skipped) {
      const stamp = u.stamps.get(s.path);
      skipped.set(s.path, { ...s, ...(stamp ? { stamp } : {}) });
      const before = this.skipped.get(s.path);
      if (before?.kind !== s.kind)
        this.logger?.warn({ path: s.path, kind: s.kind, reason: s.reason }, "file skipped, not indexed");
    }
    for (const r of u.repaired) {
      repaired.set(r.path, r);
      if (this.repaired.get(r.path)?.kind !== r.kind)
        this.logger?.warn({ path: r.path, kind: r.kind, reason: r.reason }, "file indexed with a loss");
    }
    for (const p of this.skipped.keys())
      if (!skipped.has(p) && (u.full || u.paths.includes(p))) this.logger?.info({ path: p }, "file no longer skipped");
    this.skipped = skipped;
    this.repaired = repaired;
  }

  summary(): { skipped: IssueSummary; repaired: IssueSummary } {
    return {
      skipped: summarizeIssues([...this.skipped.values()]),
      repaired: summarizeIssues([...this.repaired.values()]),
    };
  }
}
