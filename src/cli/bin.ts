#!/usr/bin/env node
/**
 * The `cortexd` CLI in Node (the package's `cortexd` executable is the launcher bin/cortexd, which
 * answers hooks itself when the daemon is down and execs this file otherwise). Agent hooks
 * (`cortexd hook <event>`) must start fast, so they are dispatched to the lean hook entry before
 * the full CLI (commander, zod, SQLite, models) is loaded; everything else, including
 * `cortexd hook install`, goes to the full CLI in ./main.js.
 */
const args = process.argv.slice(2);
if (
  args[0] === "hook" &&
  args[1] !== undefined &&
  args[1] !== "install" &&
  args[1] !== "uninstall" &&
  !args[1].startsWith("-")
) {
  const { runHook } = await import("../hooks/run.js");
  await runHook(args.slice(1));
} else {
  try {
    await import("./main.js");
  } catch (e) {
    // Loading the CLI itself can run out of file descriptors (a low `ulimit -n`): say which limit, and the fix.
    const { openFilesMessage } = await import("./fd-limit.js").catch(() => ({ openFilesMessage: () => null }));
    const message = openFilesMessage(e);
    if (!message) throw e;
    process.stderr.write(`${message}\n`);
    process.exitCode = 71; // EX_OSERR
  }
}
