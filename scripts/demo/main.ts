/**
 * `npm start`: the README's demo. Runs the daemon in the foreground on a copy of examples/workspace
 * with everything of its own in one temp dir — the workspace copy, a config, the data dir (index,
 * logs) and the socket — so it never touches the user's config, data dir or running daemon, and the
 * working tree stays as committed. The dir is emptied when the demo stops (Ctrl-C), but for the
 * built-in model it built (data/models, reused by the next demo); set
 * CORTEXD_DEMO_KEEP=1 to keep it. Other commands reach the demo daemon through its config:
 * `export CORTEXD_CONFIG=<dir>/config.json` (the demo prints it). With --workspace/-w given
 * (`npm start -- -w ~/notes`; a relative path is taken from where npm was run), the demo's config
 * names that workspace instead, so the daemon and every command that uses the config work on it
 * (still with the demo's data dir and socket; the workspace itself is never removed). Other
 * arguments go to `cortexd run`.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DAEMON_NODE_OPTIONS } from "../../src/service/units.js";

const ROOT = resolve(import.meta.dirname, "../../..");

/** The --workspace/-w values (absolute, from where npm was run) and the other arguments, for `cortexd run`. */
function splitWorkspaces(argv: readonly string[]): { workspaces: string[]; rest: string[] } {
  const from = process.env.INIT_CWD ?? process.cwd();
  const workspaces: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = a === "-w" || a === "--workspace" ? argv[++i] : a.startsWith("--workspace=") ? a.slice(12) : null;
    if (value === null) rest.push(a);
    else if (!value) fail(`${a} needs a directory: npm start -- -w <your memory workspace>`);
    else workspaces.push(resolve(from, value));
  }
  return { workspaces, rest };
}

function fail(message: string): never {
  process.stderr.write(`cortexd demo: ${message}\n`);
  process.exit(2);
}

const { workspaces: given, rest: args } = splitWorkspaces(process.argv.slice(2));
for (const path of given) {
  if (!existsSync(path)) fail(`no such directory: ${path} (give the root of a memory workspace: MEMORY.md, memory/)`);
  if (!statSync(path).isDirectory()) fail(`not a directory: ${path} (give the root of a memory workspace)`);
}
const own = given.length > 0;
const demo = process.env.CORTEXD_DEMO_DIR ?? join(tmpdir(), `cortexd-demo-${process.getuid?.() ?? "user"}`);
const ws = join(demo, "workspace");
const config = join(demo, "config.json");
mkdirSync(demo, { recursive: true, mode: 0o700 });
if (!own && !existsSync(ws)) cpSync(join(ROOT, "examples", "workspace"), ws, { recursive: true });
writeFileSync(
  config,
  `${JSON.stringify(
    {
      workspaces: own ? given.map((path) => ({ path })) : [{ path: ws }],
      dataDir: join(demo, "data"),
      daemon: { socketPath: join(demo, "run", "cortexd.sock") },
    },
    null,
    2,
  )}\n`,
);
process.stderr.write(
  [
    `cortexd demo: the daemon runs on ${own ? given.join(", ") : `${ws}, a copy of examples/workspace (edit it freely)`},`,
    `with its own config, data dir and socket in ${demo} (removed when the demo stops; the built model is kept).`,
    `In another terminal, reach it with: export CORTEXD_CONFIG=${config}`,
    "",
  ].join("\n"),
);
const child = spawn(
  process.execPath,
  [...DAEMON_NODE_OPTIONS.split(" "), join(ROOT, "dist", "src", "cli", "main.js"), "run", ...args],
  { stdio: "inherit", env: { ...process.env, CORTEXD_CONFIG: config } },
);
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(sig, () => child.kill(sig));
/** Removes what the demo made, except the built-in model it built (data/models: a minute's work, reused next time). */
function cleanUp(): void {
  for (const entry of readdirSync(demo))
    if (entry !== "data") rmSync(join(demo, entry), { recursive: true, force: true });
  const data = join(demo, "data");
  if (existsSync(data))
    for (const entry of readdirSync(data))
      if (entry !== "models") rmSync(join(data, entry), { recursive: true, force: true });
}
child.on("exit", (code, signal) => {
  if (!process.env.CORTEXD_DEMO_KEEP) cleanUp();
  process.exitCode = code ?? (signal ? 1 : 0);
});
