/** Open files cortexd needs at least: loading its modules alone holds ~70 at once; 128 is known to work. */
export const MIN_OPEN_FILES = 128;

/** The soft open-file limit (`ulimit -n`) from Node's diagnostic report (no file opened), or null. */
function openFileLimit(): string | null {
  try {
    const report = process.report?.getReport() as { userLimits?: { open_files?: { soft?: unknown } } } | undefined;
    const soft = report?.userLimits?.open_files?.soft;
    return typeof soft === "number" || typeof soft === "string" ? String(soft) : null;
  } catch {
    return null;
  }
}

/**
 * For an error that ran out of file descriptors (EMFILE, ENFILE; e.g. while loading modules under
 * `ulimit -n 64`): a message naming the limit and the fix. Null for any other error.
 */
export function openFilesMessage(e: unknown): string | null {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  if (code !== "EMFILE" && code !== "ENFILE") return null;
  if (code === "ENFILE")
    return "cortexd: the system ran out of open files (ENFILE): close some programs or raise fs.file-max, then start cortexd again";
  const limit = openFileLimit();
  return (
    `cortexd: too many open files (EMFILE): the open-file limit is ${limit ?? "too low"}${limit ? " (ulimit -n)" : ""}; ` +
    `cortexd needs at least ${MIN_OPEN_FILES}. Raise it in this shell with \`ulimit -n 1024\` ` +
    `(or LimitNOFILE=1024 in a systemd unit, \`launchctl limit maxfiles\` on macOS) and start cortexd again`
  );
}
