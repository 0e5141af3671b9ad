import { fsWriteFault, type WriteFault } from "../../util/write-fault.js";
import { errorMessage } from "../../util/error-message.js";

/**
 * Index write failures a person can act on, named plainly: a full disk and a read-only data dir.
 * Anything else keeps SQLite's own message.
 */
export type { WriteFault };

export function writeFault(e: unknown): WriteFault | null {
  const code = String((e as { code?: unknown }).code ?? "");
  if (code === "SQLITE_FULL" || code.startsWith("SQLITE_IOERR_WRITE")) return "disk-full";
  if (code.startsWith("SQLITE_READONLY")) return "read-only";
  return fsWriteFault(code);
}

/** "disk full: …" / "read-only: …" with what still works and what to do; else the error's message. */
export function describeWriteError(e: unknown, where: string): string {
  const msg = errorMessage(e) ?? String(e);
  switch (writeFault(e)) {
    case "disk-full":
      return `disk full: cannot write the index in ${where} (${msg}); searches answer from the index as it is, changes are indexed again once space is freed`;
    case "read-only":
      return `read-only: cannot write the index in ${where} (${msg}); searches answer from the index as it is, changes are indexed again once it is writable`;
    default:
      return msg;
  }
}
