import type { FileHandle } from "node:fs/promises";
import { countNewlines } from "../util/regular-file.js";

/**
 * Line numbers for an append without reading the file again: how many newlines a file held at the
 * end of cortexd's last append to it (by path, checked against its inode, size and mtime), so the
 * next append's line is that count plus its own. A file changed by someone else since (or never
 * seen) is counted once, in 1 MiB reads. The cost of a save does not grow with the log.
 */
interface Count {
  ino: number;
  size: number;
  mtimeMs: number;
  newlines: number;
}

const MAX_REMEMBERED = 256;
const counts = new Map<string, Count>();

function newlinesIn(buf: Buffer, end = buf.length): number {
  let n = 0;
  for (let i = buf.indexOf(10); i !== -1 && i < end; i = buf.indexOf(10, i + 1)) n++;
  return n;
}

/** Newlines in the file before byte `size`, from the remembered count when the file is as we left it. */
async function newlinesBefore(
  fh: FileHandle,
  path: string,
  at: { ino: number; size: number; mtimeMs: number },
): Promise<number> {
  const c = counts.get(path);
  if (c && c.ino === at.ino && c.size === at.size && c.mtimeMs === at.mtimeMs) return c.newlines;
  return countNewlines(fh, at.size);
}

/** How far past the expected place an entry is looked for when someone appended in between. */
const MAX_SEARCH_BYTES = 4 * 1024 * 1024;

/** The entry's offset when others appended before it landed (searched in the bytes after `from`). */
async function findLanded(fh: FileHandle, from: number, buf: Buffer): Promise<number | undefined> {
  const size = (await fh.stat()).size;
  if (size < from || size - from > MAX_SEARCH_BYTES) return undefined;
  const rest = Buffer.allocUnsafe(size - from);
  const { bytesRead } = await fh.read(rest, 0, rest.length, from);
  const at = rest.subarray(0, bytesRead).indexOf(buf);
  return at < 0 ? undefined : from + at;
}

/**
 * The 1-based first line of an entry just appended (`buf`, whose first `prefixBytes` are a header or
 * separator) to the file open as `fh`, whose state before the write was `before`; undefined when
 * the bytes are not found after that point (the file was rewritten in between).
 */
export async function appendedLine(
  fh: FileHandle,
  path: string,
  before: { ino: number; size: number; mtimeMs: number },
  buf: Buffer,
  prefixBytes: number,
): Promise<number | undefined> {
  const landed = Buffer.allocUnsafe(buf.length);
  const { bytesRead } = await fh.read(landed, 0, buf.length, before.size);
  if (bytesRead !== buf.length || !landed.equals(buf)) {
    counts.delete(path);
    const at = await findLanded(fh, before.size, buf);
    return at === undefined ? undefined : (await countNewlines(fh, at)) + newlinesIn(buf, prefixBytes) + 1;
  }
  const prior = await newlinesBefore(fh, path, before);
  const after = await fh.stat();
  if (counts.size >= MAX_REMEMBERED && !counts.has(path)) counts.delete(counts.keys().next().value!);
  if (after.size === before.size + buf.length)
    counts.set(path, { ino: after.ino, size: after.size, mtimeMs: after.mtimeMs, newlines: prior + newlinesIn(buf) });
  else counts.delete(path);
  return prior + newlinesIn(buf, prefixBytes) + 1;
}
