/**
 * `npm start`: the README's demo. Runs the daemon in the foreground on a copy of examples/workspace
 * in a temp dir (made once, reused), so the demo's edits, saves and hooks never touch the working
 * tree (the tests and the next reader see examples/ as committed). With --workspace/-w given, it
 * runs the daemon on that instead. Other arguments go to `cortexd run`.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DAEMON_NODE_OPTIONS } from "../../src/service/units.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const args = process.argv.slice(2);
const own = args.some((a) => a === "-w" || a === "--workspace" || a.startsWith("--workspace="));
if (!own) {
  const demo = process.env.CORTEXD_DEMO_DIR ?? join(tmpdir(), `cortexd-demo-${process.getuid?.() ?? "user"}`);
  const ws = join(demo, "workspace");
  if (!existsSync(ws)) cpSync(join(ROOT, "examples", "workspace"), ws, { recursive: true });
  process.stderr.write(
    `cortexd demo: the daemon runs on ${ws}, a copy of examples/workspace (edit it freely; remove it to start over)\n`,
  );
  args.unshift("--workspace", ws);
}
const child = spawn(
  process.execPath,
  [...DAEMON_NODE_OPTIONS.split(" "), join(ROOT, "dist", "src", "cli", "main.js"), "run", ...args],
  { stdio: "inherit" },
);
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => (process.exitCode = code ?? (signal ? 1 : 0)));
