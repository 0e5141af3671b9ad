/**
 * Filesystem write failures a person can act on: a full disk, or a place that cannot be written
 * (a read-only mount, missing permission). One classification for the index, the memory files and
 * the session state.
 */
export type WriteFault = "disk-full" | "read-only";

const DISK_FULL = new Set(["ENOSPC", "EDQUOT"]);
const READ_ONLY = new Set(["EROFS", "EACCES", "EPERM"]);

/** The fault an error code (`ENOSPC`, `EROFS`, …) names, or null for any other. */
export function fsWriteFault(code: string | undefined): WriteFault | null {
  if (code === undefined) return null;
  if (DISK_FULL.has(code)) return "disk-full";
  if (READ_ONLY.has(code)) return "read-only";
  return null;
}
