import { statSync } from "node:fs";
import { readRegularTextSync } from "../util/regular-file.js";
import { join, posix } from "node:path";
import { hasConflictMarkers } from "../ingest/conflict-markers.js";

/**
 * Saves while a memory file is in a git conflict. Appending into the conflicted file would put the
 * entry inside (or after) the conflict and make the merge harder; so the entry goes to a sidecar
 * beside it, named for what it is: `memory/2026-12-01.md` → `memory/2026-12-01.saved-during-conflict.md`
 * (still that day's daily log for the index), `MEMORY.md` → `memory/MEMORY.saved-during-conflict.md`.
 * Once the conflict is resolved, saves go to the file again; the sidecar's entries are the user's to
 * move (the status fix and the save's reply say so).
 */
export const SIDECAR_TAG = "saved-during-conflict";

/** Files larger than this are not read for markers (memory files are far smaller). */
const MAX_CHECK_BYTES = 16 * 1024 * 1024;

export function sidecarKey(key: string): string {
  const dir = posix.dirname(key);
  const base = posix.basename(key).replace(/\.md$/i, "");
  return `${dir === "." ? "memory" : dir}/${base}.${SIDECAR_TAG}.md`;
}

/** True when the file exists and holds a whole git conflict block. */
export function fileHasConflict(absPath: string): boolean {
  try {
    const st = statSync(absPath, { throwIfNoEntry: false });
    if (!st?.isFile() || st.size > MAX_CHECK_BYTES) return false;
    return hasConflictMarkers(readRegularTextSync(absPath, { maxBytes: MAX_CHECK_BYTES }));
  } catch {
    return false; // unreadable: the append reports its own error
  }
}

/**
 * Where an append meant for `key` goes: the file itself, or its sidecar while the file is conflicted.
 * `unmerged`: what git says (a workspace with git sync); only without it do the file's markers decide.
 */
export function divertFromConflict(
  root: string,
  key: string,
  unmerged?: boolean,
): { key: string; absPath: string; conflicted?: string } {
  const absPath = join(root, key);
  if (!(unmerged ?? fileHasConflict(absPath))) return { key, absPath };
  const side = sidecarKey(key);
  return { key: side, absPath: join(root, side), conflicted: key };
}

/** How to resolve a conflicted memory file (status and the save reply). */
export function conflictFix(file: string, sidecar?: string): string {
  return (
    `resolve the git merge in ${file}: keep the lines you want, delete the <<<<<<< ======= >>>>>>> lines, then \`git add ${file}\` and \`git commit\`` +
    (sidecar ? `; memories saved meanwhile are in ${sidecar}: move them into ${file} and delete it` : "")
  );
}

/** The memory.save reply's note for a save that went to the sidecar. */
export function conflictNote(file: string, savedTo: string): { file: string; savedTo: string; fix: string } {
  return { file, savedTo, fix: conflictFix(file, savedTo) };
}
