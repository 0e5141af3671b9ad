import { ConfigError } from "./config-error.js";
import { ReadFileError, readRegularTextSync } from "../util/regular-file.js";
import { UnusableFileError } from "../util/unusable-file.js";

/** A config file is small; anything larger is a mistake (or /dev/zero), not a config. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

function asConfigError(e: ReadFileError, file: string): ConfigError {
  const what = e.kind === "too-large" ? `the file is ${e.message}` : `cannot read it: ${e.message}`;
  const message = `${what}; replace it with a regular JSON file of at most ${MAX_CONFIG_BYTES} bytes`;
  // A FIFO, a device, a socket or a file over the cap: the file is unusable (its own error code in the daemon).
  const unusable = e.notRegular !== undefined || e.kind === "too-large";
  return new ConfigError(message, file, unusable ? { cause: new UnusableFileError(file, message) } : undefined);
}

/**
 * The config file's text, read through the regular-file reader: a FIFO, a device (a link to
 * `/dev/zero`), a socket or a file over MAX_CONFIG_BYTES is a ConfigError saying what it is and
 * what to do, never a blocked or unbounded read. A missing file is null.
 */
export function readConfigTextIfExists(file: string): string | null {
  try {
    return readRegularTextSync(file, { maxBytes: MAX_CONFIG_BYTES });
  } catch (e) {
    if (!(e instanceof ReadFileError)) throw e;
    if (e.kind === "vanished" && e.message === "does not exist") return null;
    throw asConfigError(e, file);
  }
}

/** Like readConfigTextIfExists, for a file that must exist (a missing one is a ConfigError too). */
export function readConfigText(file: string): string {
  const text = readConfigTextIfExists(file);
  if (text === null) throw new ConfigError("cannot read it: does not exist", file);
  return text;
}
