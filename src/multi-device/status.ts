import type { WorkspaceEngine } from "../engine/engine.js";
import type { WorkspaceSyncStatus } from "../rpc/protocol.js";
import { conflictCopyKey } from "../workspace/conflict-copies.js";
import type { GitSync } from "./git-sync.js";
import { conflictFix, SIDECAR_TAG, sidecarKey } from "./save-sidecar.js";

const COPIES_FIX =
  "merge each copy's lines into the file it is a copy of (recall shows their shared lines once meanwhile), then delete the copy";
/** At most this many conflict copies are listed. */
const MAX_COPIES = 50;

const copiesCache = new WeakMap<object, { stamp: string | undefined; copies: { path: string; of: string }[] }>();

/** Conflict copies of file-sync tools among the indexed files (only those whose original is indexed too). */
function conflictCopies(ws: WorkspaceEngine): { path: string; of: string }[] {
  const stamp = ws.store.getMeta("last_sync");
  const cached = copiesCache.get(ws.store);
  if (cached && cached.stamp === stamp) return cached.copies;
  // Only the paths that can be copies, from SQL, and their originals looked up: at 100,000 files,
  // reading every file's stamp and sorting every path held a status call ~0.2–0.3 s after each sync.
  let copies: { path: string; of: string }[] = [];
  for (const p of ws.store.conflictCandidates()) {
    if (p.includes(`.${SIDECAR_TAG}.`)) continue;
    const of = conflictCopyKey(p);
    if (of !== undefined && ws.store.getFile(of)) copies.push({ path: p, of });
  }
  copies = copies.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).slice(0, MAX_COPIES);
  copiesCache.set(ws.store, { stamp, copies });
  return copies;
}

/** A workspace's sync fields for status: shared, conflicted files and conflict copies, the scheduled git sync. */
export function workspaceSyncStatus(ws: WorkspaceEngine, git?: GitSync): WorkspaceSyncStatus {
  // With git sync, a file is conflicted only while git holds it unmerged (a committed file may quote markers).
  const unmerged = git?.unmergedKeys(ws.name);
  const files = ws.indexer.conflicts.list().filter((f) => !unmerged || unmerged.has(f));
  const copies = conflictCopies(ws);
  const gitSync = git?.status(ws.name);
  const fixes = [...files.map((f) => conflictFix(f, sidecarKey(f))), ...(copies.length ? [COPIES_FIX] : [])];
  return {
    ...(ws.shared ? { shared: true } : {}),
    ...(files.length || copies.length ? { conflicts: { files, copies, fix: fixes.join("; ") } } : {}),
    ...(gitSync ? { gitSync } : {}),
  };
}
