/**
 * A memory or config file that cortexd must read or write is not a file it can use: a FIFO, a
 * device (a link to `/dev/zero`), a socket or a directory where a regular file should be, or one over
 * its size cap. Nothing was read or written; the message names the file, what it is and what to do.
 * The daemon answers it with its own error code (ErrorCodes.UnusableFile), not a generic -32603.
 */
export class UnusableFileError extends Error {
  override name = "UnusableFileError";
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** The UnusableFileError an error is, or was caused by (its `cause` chain), if any. */
export function unusableFileIn(e: unknown): UnusableFileError | undefined {
  for (let cur = e, depth = 0; cur instanceof Error && depth < 8; cur = cur.cause, depth++)
    if (cur instanceof UnusableFileError) return cur;
  return undefined;
}

/** What a non-regular file is, from its stat (for messages). */
export function fileKind(st: {
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
  isDirectory(): boolean;
}): string {
  if (st.isFIFO()) return "a FIFO";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  if (st.isSocket()) return "a socket";
  if (st.isDirectory()) return "a directory";
  return "not a regular file";
}
