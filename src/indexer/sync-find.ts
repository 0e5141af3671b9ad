import { isAbsolute, join, relative, sep } from "node:path";
import { scanWorkspace, statOne, tryLstat, type ScanTarget, type WorkspaceFile } from "../workspace/scan.js";
import { stampOf, type FileIssues, type Stamp } from "./file-issues.js";
import type { FileStamp, IndexStore } from "../index/repos/store.js";
import type { SyncReport } from "./sync-report.js";

/** Sync, finding phase: the files on disk, what the index has for them, and which of them changed. */
export interface FoundFiles {
  disk: WorkspaceFile[];
  indexed: Map<string, FileStamp>;
  /** Index keys a targeted sync looked at (their issue entries are replaced). */
  looked: string[];
}

/** The index key of a path: relative (POSIX) inside the root, absolute outside it. */
export function keyFor(root: string, p: string): string {
  if (!isAbsolute(p)) return p.split(sep).join("/");
  const rel = relative(root, p);
  return rel.startsWith("..") || isAbsolute(rel) ? p : rel.split(sep).join("/");
}

/** Phase 1: the files on disk (a scan, or just the given paths) and what the index has for them. */
export async function findFiles(
  store: IndexStore,
  target: ScanTarget,
  paths: readonly string[] | undefined,
  report: SyncReport,
): Promise<FoundFiles> {
  const looked: string[] = [];
  if (!paths) {
    const scan = await scanWorkspace(target);
    report.skipped.push(...scan.skipped);
    return { disk: scan.files, indexed: store.fileStamps(), looked };
  }
  // Targeted sync (watcher events, index.sync {path}): look at just these paths.
  const root = target.root;
  const disk: WorkspaceFile[] = [];
  const indexed = new Map<string, FileStamp>();
  for (const p of new Set(paths)) {
    const abs = isAbsolute(p) ? p : join(root, p);
    const file = statOne(target, abs);
    if (file && !disk.some((f) => f.path === file.path)) disk.push(file);
    const key = file?.path ?? keyFor(root, abs);
    // A path that is gone (not one statOne refused, e.g. a symlink out) loses its issue entry.
    if (file || !tryLstat(abs)) looked.push(key);
    const row = store.getFile(key);
    if (row) indexed.set(key, row);
  }
  return { disk, indexed, looked };
}

/** Phase 2: the files whose size or mtime changed (or all, when forced), less those known to be skipped. */
export function changedFiles(
  found: FoundFiles,
  force: boolean,
  issues: FileIssues,
  report: SyncReport,
  skipStamps: Map<string, Stamp>,
): WorkspaceFile[] {
  return found.disk.filter((file) => {
    const row = found.indexed.get(file.path);
    const same = row && !force && row.size === file.size && row.mtimeMs === file.mtimeMs;
    if (same) report.unchanged++;
    // A file skipped before and unchanged since (say, a 60 MB binary) is not read again.
    const known = !same && !force && !row ? issues.knownSkip(file) : undefined;
    if (known) {
      report.skipped.push(known);
      skipStamps.set(file.path, stampOf(file));
    }
    return !same && !known;
  });
}

/** The indexed files no longer on disk, and the same grouped by content hash (rename detection). */
export function goneFiles(found: FoundFiles): { gone: FileStamp[]; goneBySha: Map<string, FileStamp[]> } {
  const onDisk = new Set(found.disk.map((f) => f.path));
  const gone = [...found.indexed.values()].filter((f) => !onDisk.has(f.path));
  const goneBySha = new Map<string, FileStamp[]>();
  for (const g of gone) goneBySha.set(g.sha256, [...(goneBySha.get(g.sha256) ?? []), g]);
  return { gone, goneBySha };
}
