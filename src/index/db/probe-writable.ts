import { closeSync, openSync, statSync, unlinkSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { fsWriteFault } from "../../util/write-fault.js";

/** Can files be created and written in a directory right now? */
export type WritableProbe =
  { writable: true; dir: string } | { writable: false; dir: string; code: string; message: string };

/** Errors that mean "this place is not writable" (as opposed to full, or broken). */
export function isReadOnlyCode(code: string): boolean {
  return fsWriteFault(code) === "read-only";
}

/** The directory itself, or its nearest existing ancestor (a data dir whose `indexes/` is not made yet). */
function nearestExisting(dir: string): string {
  let d = dir;
  while (!statSync(d, { throwIfNoEntry: false })?.isDirectory()) {
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  return d;
}

/**
 * Creates, writes and removes a small file in `dir` (or its nearest existing ancestor). Asking the
 * filesystem is the only portable way to learn whether it is mounted read-only, was turned
 * read-only after an error, or lost its permissions; a full disk answers ENOSPC here.
 */
export function probeWritable(dir: string): WritableProbe {
  const at = nearestExisting(dir);
  const file = `${at}/.cortexd-probe-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  let fd: number | undefined;
  try {
    fd = openSync(file, "wx", 0o600);
    writeSync(fd, "probe\n");
    return { writable: true, dir: at };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    // "EROFS: read-only file system" (the probe's own file name says nothing useful)
    return { writable: false, dir: at, code: err.code ?? "EIO", message: err.message.replace(/, open '[^']*'$/, "") };
  } finally {
    if (fd !== undefined) {
      closeSync(fd);
      try {
        unlinkSync(file);
      } catch {
        // a probe file left behind is harmless: a dot-file of a few bytes
      }
    }
  }
}
