import { constants } from "node:fs";
import { mkdir, open, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { fsWriteFault } from "../util/write-fault.js";
import { fileKind, UnusableFileError } from "../util/unusable-file.js";
import { newFileMode, resolveWritePath } from "./write-path.js";
import { appendedLine } from "./line-count.js";

/**
 * Appending to memory files that a person may be editing at the same time.
 *
 * The file is opened with O_APPEND and the whole entry is written with one write() of one buffer,
 * so the kernel places it at the current end of the file: nothing is ever truncated or rewritten,
 * and a line another process appended is never lost. Before writing, the last byte is re-read; if
 * the file does not end with a newline (someone is mid-line), the entry starts with one. A new file
 * is created with O_EXCL, so two creators cannot both write a heading. Inside the daemon, writers
 * of one file are serialised with a per-file lock (KeyedLock), which keeps the line numbers we
 * report exact among our own writes.
 */

/** Serialises async work per key (e.g. per file path). */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = prev.then(() => mine);
    this.tails.set(key, tail);
    await prev;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

export interface AppendResult {
  /** Absolute path written. */
  absPath: string;
  /** The file did not exist and was created (with the header). */
  created: boolean;
  /** 1-based lines of the appended entry lines (the header and separator newline excluded). */
  startLine?: number;
  endLine?: number;
  bytes: number;
}

export interface AppendOptions {
  /** Written first when the file is created by this append (e.g. "# 2026-11-29\n\n"). */
  header?: string;
  /**
   * The workspace root: the write follows symlinks only while they stay inside it (write-path.ts),
   * else WritePathRefusedError. Without it, the path is written as given.
   */
  root?: string;
}

/** An append that did not happen (e.g. the disk is full): nothing of it is left in the file. */
export class AppendError extends Error {
  override name = "AppendError";
  readonly code: string | undefined;
  constructor(
    readonly path: string,
    cause: NodeJS.ErrnoException,
  ) {
    const fault = fsWriteFault(cause.code);
    const why =
      fault === "disk-full"
        ? "the disk is full (free some space and save again)"
        : fault === "read-only"
          ? "the file or its directory is not writable"
          : cause.message;
    super(`could not append to ${path}: ${why} [${cause.code ?? "error"}]; nothing was written`, { cause });
    this.code = cause.code;
  }
}

/** The path is a FIFO, a device, a socket or a directory: nothing is written (and nothing waits). */
function notAFile(absPath: string, kind: string): UnusableFileError {
  return new UnusableFileError(
    absPath,
    `${absPath} is ${kind}, not a regular file: nothing was written; replace it with a regular file (move it aside) and save again`,
  );
}

/**
 * A write that failed half-way (ENOSPC after some bytes) would leave half an entry: cut the file
 * back to where it was, but only if the file still ends with exactly our bytes (nobody appended
 * after them), so no one else's line is ever removed.
 */
async function undoPartialAppend(fh: FileHandle, sizeBefore: number, written: number): Promise<void> {
  try {
    if ((await fh.stat()).size === sizeBefore + written) await fh.truncate(sizeBefore);
  } catch {
    // best effort: the entry may remain incomplete, which the error says
  }
}

/** Appends lines (without trailing newlines) as one write; see the module comment. */
export async function appendLines(
  absPath: string,
  lines: readonly string[],
  opts: AppendOptions = {},
): Promise<AppendResult> {
  let path = absPath;
  if (opts.root) path = await resolveWritePath(opts.root, absPath);
  else await mkdir(dirname(absPath), { recursive: true });
  let fh: FileHandle;
  let created = false;
  try {
    // O_EXCL never follows a symlink; the final open below refuses one (resolved above already).
    fh = await open(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL, 0o600);
    created = true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    fh = await open(path, constants.O_RDWR | constants.O_APPEND | (opts.root ? constants.O_NOFOLLOW : 0)).catch(
      (e2: NodeJS.ErrnoException) => {
        // A Unix socket cannot be opened (ENXIO), a directory not for writing (EISDIR).
        if (e2.code === "ENXIO") throw notAFile(absPath, "a socket");
        if (e2.code === "EISDIR") throw notAFile(absPath, "a directory");
        throw e2;
      },
    );
  }
  if (created) {
    // The mode of the memory files already beside it (owner-only when there are none), whatever the umask.
    const mode = await newFileMode(dirname(path), basename(path)).catch(() => 0o600);
    await fh.chmod(mode).catch(() => undefined);
  }
  let sizeBefore: number;
  let buf: Buffer;
  let startLine: number | undefined;
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw notAFile(absPath, fileKind(st));
    sizeBefore = st.size;
    let prefix = "";
    if (created) prefix = opts.header ?? "";
    else if (st.size > 0) {
      const last = Buffer.alloc(1);
      await fh.read(last, 0, 1, st.size - 1);
      if (last[0] !== 0x0a) prefix = "\n";
    }
    const prefixBytes = Buffer.byteLength(prefix);
    buf = Buffer.from(prefix + lines.join("\n") + "\n", "utf8");
    let off = 0;
    try {
      while (off < buf.length) {
        const { bytesWritten } = await fh.write(buf, off, buf.length - off);
        off += bytesWritten;
      }
      // On disk before we say it is saved: an acknowledged entry survives a crash of the machine too.
      await fh.datasync();
    } catch (e) {
      if (off > 0) await undoPartialAppend(fh, sizeBefore, off);
      // A file this call created and could not fill is removed again (it is empty).
      if (
        created &&
        (await fh.stat().then(
          (st) => st.size === 0,
          () => false,
        ))
      )
        await unlink(path).catch(() => undefined);
      throw new AppendError(absPath, e as NodeJS.ErrnoException);
    }
    // Where did it land? At the size we saw (O_APPEND), normally; line numbers are informative only.
    startLine = await appendedLine(fh, path, st, buf, prefixBytes).catch(() => undefined);
  } finally {
    await fh.close().catch(() => undefined);
  }
  const result: AppendResult = { absPath, created, bytes: buf.length };
  if (startLine !== undefined) {
    result.startLine = startLine;
    result.endLine = startLine + lines.length - 1;
  }
  return result;
}
