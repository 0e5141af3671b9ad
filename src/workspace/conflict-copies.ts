import { posix } from "node:path";

/**
 * Conflict copies that file-sync tools leave beside a file both devices changed:
 *   Syncthing  `2026-12-01.sync-conflict-20261201-101500-ABCDEFG.md`
 *   Dropbox    `2026-12-01 (conflicted copy 2026-12-01).md`, `notes (Ann's conflicted copy 2026-12-01).md`
 *   Finder / iCloud  `notes 2.md`
 * Each is recognised by its name alone and mapped to the file it is a copy of.
 */
const SYNCTHING = /^(.*)\.sync-conflict-\d{8}-\d{6}(?:-[A-Z0-9]{7})?(\.[^.]+)?$/;
const DROPBOX = /^(.*?) \([^()]*conflicted copy[^()]*\)(\.[^.]+)?$/i;
const NUMBERED = /^(.*\S) ([2-9]|[1-9]\d)(\.[^.]+)$/;

/** The base name of the file this is a conflict copy of, or undefined when it is not one. */
export function conflictCopyOf(basename: string): string | undefined {
  let m = SYNCTHING.exec(basename);
  if (m) return `${m[1]}${m[2] ?? ""}`;
  m = DROPBOX.exec(basename);
  if (m) return `${m[1]}${m[2] ?? ""}`;
  m = NUMBERED.exec(basename);
  if (m) return `${m[1]}${m[3]}`;
  return undefined;
}

/** For an index key ("memory/x 2.md"): the key of the original ("memory/x.md"), or undefined. */
export function conflictCopyKey(key: string): string | undefined {
  const base = posix.basename(key);
  const of = conflictCopyOf(base);
  if (of === undefined) return undefined;
  const dir = posix.dirname(key);
  return dir === "." ? of : `${dir}/${of}`;
}
