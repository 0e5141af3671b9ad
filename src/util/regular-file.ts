import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, type Stats } from "node:fs";
import { realpath, type FileHandle } from "node:fs/promises";
import { isAbsolute, relative } from "node:path";
import { openNonBlocking, ReadFileError, readRegularFile, socketRefused } from "./read-regular.js";
import { fileKind } from "./unusable-file.js";

export { ReadFileError };

/**
 * The one way cortexd reads a workspace or config file (the lint forbids readFile/readFileSync
 * elsewhere, eslint.config.js). Every read:
 * - opens the path non-blocking (O_NONBLOCK), so a FIFO never waits for a writer;
 * - checks the open file with fstat: a FIFO, a device (`/dev/zero`), a socket or a directory is
 *   refused, whatever name or symlink led to it;
 * - with `root`, follows symlinks only while they stay inside that directory;
 * - refuses a file over `maxBytes`, or (readTail) reads only its last bytes.
 * Refusals are ReadFileError: kind "vanished" (gone, or not a regular file), "too-large", "unreadable".
 */

function refusedKind(st: Stats): ReadFileError {
  const kind = fileKind(st);
  return new ReadFileError("vanished", `not a regular file (${kind})`, kind);
}

function insideDir(dir: string, p: string): boolean {
  const rel = relative(dir, p);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** The real path of `absPath` when it resolves inside `root`, else ReadFileError. */
export async function resolveInside(absPath: string, root: string): Promise<string> {
  let real: string;
  let realRoot: string;
  try {
    [real, realRoot] = await Promise.all([realpath(absPath), realpath(root)]);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw new ReadFileError("vanished", "does not exist");
    throw new ReadFileError("unreadable", `unreadable: ${code ?? e}`);
  }
  if (!insideDir(realRoot, real)) throw new ReadFileError("unreadable", "a symlink out of the workspace");
  return real;
}

/** Reads a regular file whole as UTF-8 (at most maxBytes), optionally kept inside `root`. */
export async function readRegularText(absPath: string, opts: { maxBytes: number; root?: string }): Promise<string> {
  const path = opts.root ? await resolveInside(absPath, opts.root) : absPath;
  const fh = await openNonBlocking(path);
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw refusedKind(st);
  } catch (e) {
    if (e instanceof ReadFileError) throw e;
    throw new ReadFileError("unreadable", `unreadable: ${(e as NodeJS.ErrnoException).code ?? e}`);
  } finally {
    await fh.close();
  }
  return (await readRegularFile(path, opts.maxBytes)).toString("utf8");
}

/**
 * The synchronous form, for the config file (loaded at start and on reload): same refusals. The open
 * is non-blocking and the file is checked before a byte is read, so it never waits and never reads
 * more than maxBytes. `headOnly`: a larger file is not refused, its first maxBytes are read.
 */
export function readRegularTextSync(
  absPath: string,
  opts: { maxBytes: number; root?: string; headOnly?: boolean },
): string {
  let path = absPath;
  let fd: number;
  try {
    if (opts.root) {
      path = realpathSync(absPath);
      if (!insideDir(realpathSync(opts.root), path))
        throw new ReadFileError("unreadable", "a symlink out of the workspace");
    }
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    if (e instanceof ReadFileError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw new ReadFileError("vanished", "does not exist");
    if (code === "ENXIO") throw socketRefused();
    throw new ReadFileError("unreadable", `unreadable: ${code ?? e}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw refusedKind(st);
    if (st.size > opts.maxBytes && !opts.headOnly)
      throw new ReadFileError("too-large", `larger than ${opts.maxBytes} bytes (${st.size})`);
    const buf = Buffer.allocUnsafe(Math.min(st.size, opts.maxBytes));
    let n = 0;
    while (n < buf.length) {
      const got = readSync(fd, buf, n, buf.length - n, n);
      if (got === 0) break;
      n += got;
    }
    return buf.subarray(0, n).toString("utf8");
  } catch (e) {
    if (e instanceof ReadFileError) throw e;
    throw new ReadFileError("unreadable", `unreadable: ${(e as NodeJS.ErrnoException).code ?? e}`);
  } finally {
    closeSync(fd);
  }
}

/** Like readRegularTextSync, but a missing file is null (other refusals still throw). */
export function readRegularTextSyncIfExists(absPath: string, opts: { maxBytes: number }): string | null {
  try {
    return readRegularTextSync(absPath, opts);
  } catch (e) {
    if (e instanceof ReadFileError && e.message === "does not exist") return null;
    throw e;
  }
}

export interface FileTail {
  /** The whole lines of the file's last maxBytes (the first, cut line dropped when the read did not start at 0). */
  lines: string[];
  /** 1-based line number of lines[0]. */
  firstLine: number;
}

const SCAN_CHUNK = 1024 * 1024;

/** Newlines in bytes [0, end) of an open file, counted in 1 MiB reads (memory stays small). */
export async function countNewlines(fh: FileHandle, end: number): Promise<number> {
  const buf = Buffer.allocUnsafe(Math.min(SCAN_CHUNK, Math.max(end, 1)));
  let n = 0;
  for (let pos = 0; pos < end;) {
    const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, end - pos), pos);
    if (bytesRead === 0) break;
    for (let i = buf.indexOf(10); i !== -1 && i < bytesRead; i = buf.indexOf(10, i + 1)) n++;
    pos += bytesRead;
  }
  return n;
}

/**
 * The last `maxBytes` of a regular file as lines (split like `text.split(/\r?\n/)`), with the line
 * number of the first one. Only the tail is held in memory; the part before it is scanned in 1 MiB
 * reads to number the lines (each read yields to the event loop).
 */
export async function readTail(absPath: string, opts: { maxBytes: number; root?: string }): Promise<FileTail> {
  const path = opts.root ? await resolveInside(absPath, opts.root) : absPath;
  const fh = await openNonBlocking(path);
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw refusedKind(st);
    const start = Math.max(0, st.size - opts.maxBytes);
    const buf = Buffer.allocUnsafe(st.size - start);
    let n = 0;
    while (n < buf.length) {
      const { bytesRead } = await fh.read(buf, n, buf.length - n, start + n);
      if (bytesRead === 0) break;
      n += bytesRead;
    }
    let bytes = buf.subarray(0, n);
    let before = 0;
    if (start > 0) {
      const nl = bytes.indexOf(10);
      bytes = nl === -1 ? bytes.subarray(bytes.length) : bytes.subarray(nl + 1);
      before = start + (nl === -1 ? n : nl + 1);
    }
    const counted = before === 0 ? 0 : await countNewlines(fh, before);
    return { lines: bytes.toString("utf8").split(/\r?\n/), firstLine: counted + 1 };
  } catch (e) {
    if (e instanceof ReadFileError) throw e;
    throw new ReadFileError("unreadable", `unreadable: ${(e as NodeJS.ErrnoException).code ?? e}`);
  } finally {
    await fh.close();
  }
}
