import { constants, type Stats } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { fileKind } from "./unusable-file.js";

/** Why a file could not be read: gone (or no longer a regular file), too large, or an I/O error. */
export class ReadFileError extends Error {
  constructor(
    readonly kind: "vanished" | "too-large" | "unreadable",
    message: string,
    /** Set when the path is there but not a regular file: what it is ("a FIFO", "a device", "a socket", …). */
    readonly notRegular?: string,
  ) {
    super(message);
    this.name = "ReadFileError";
  }
}

/** open() of a Unix socket fails with ENXIO (there is nothing to read): refused as what it is. */
export function socketRefused(): ReadFileError {
  return new ReadFileError("vanished", "not a regular file (a socket)", "a socket");
}

/** Opens a file for reading without blocking (a FIFO never blocks); open failures as ReadFileError. */
export async function openNonBlocking(absPath: string): Promise<FileHandle> {
  try {
    return await open(absPath, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    if (code === "ENOENT" || code === "ENOTDIR") throw new ReadFileError("vanished", "vanished before it was read");
    if (code === "ENXIO") throw socketRefused();
    throw new ReadFileError("unreadable", `unreadable: ${code}`);
  }
}

/** fstat of an open file: refused unless it is a regular file of at most maxBytes. */
export async function checkRegular(fh: FileHandle, maxBytes: number): Promise<Stats> {
  const st = await fh.stat();
  if (!st.isFile()) throw new ReadFileError("vanished", "no longer a regular file", fileKind(st));
  if (st.size > maxBytes) throw new ReadFileError("too-large", `larger than ${maxBytes} bytes (${st.size})`);
  return st;
}

/**
 * Reads a regular file whole, at most maxBytes. Opened non-blocking and checked with fstat first, so
 * a path swapped for a FIFO or a device after it was listed is refused instead of blocking forever,
 * and a file that grew past the limit is not read.
 */
export async function readRegularFile(absPath: string, maxBytes: number): Promise<Buffer> {
  const fh = await openNonBlocking(absPath);
  try {
    const st = await checkRegular(fh, maxBytes);
    const buf = Buffer.allocUnsafe(st.size);
    let n = 0;
    while (n < buf.length) {
      const { bytesRead } = await fh.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break; // shrank while we read: keep what is there
      n += bytesRead;
    }
    return n === buf.length ? buf : buf.subarray(0, n);
  } catch (e) {
    if (e instanceof ReadFileError) throw e;
    throw new ReadFileError("unreadable", `unreadable: ${(e as NodeJS.ErrnoException).code ?? e}`);
  } finally {
    await fh.close();
  }
}
