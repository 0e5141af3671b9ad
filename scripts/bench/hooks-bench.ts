import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fmtMs, median, percentile, type Args } from "./util.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const LAUNCHER = join(ROOT, "bin", "cortexd");
const BIN = join(ROOT, "dist", "src", "cli", "bin.js");

/** Wall time from spawn to close of one process fed `input` on stdin. */
function timed(cmd: string, args: string[], env: NodeJS.ProcessEnv, input: string): Promise<number> {
  return new Promise((done, fail) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(cmd, args, { env, stdio: ["pipe", "ignore", "ignore"] });
    child.on("error", fail);
    child.on("close", () => done(Number(process.hrtime.bigint() - t0) / 1e6));
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}

/**
 * `npm run bench -- hooks [--runs N]`: what an agent hook costs when the daemon is down (no socket
 * file): the sh launcher's answer, the same hook through Node, and Node's own start-up.
 */
export async function benchHooks(args: Args): Promise<void> {
  const runs = Number(args.flags.runs ?? 30);
  const home = mkdtempSync(join(tmpdir(), "cortexd-bench-hooks-"));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local/share"),
    XDG_RUNTIME_DIR: join(home, "run"),
    CORTEXD_NODE: process.execPath,
  };
  delete env.CORTEXD_SOCKET;
  delete env.CORTEXD_CONFIG;
  const event = JSON.stringify({
    hook_event_name: "UserPromptSubmit",
    session_id: "s",
    prompt: "why did the deploy fail?",
  });
  const cases: [string, string, string[]][] = [
    ["node -e '' (Node start-up alone)", process.execPath, ["-e", ""]],
    ["launcher: cortexd hook UserPromptSubmit", LAUNCHER, ["hook", "UserPromptSubmit"]],
    ["launcher: cortexd hook pre-turn", LAUNCHER, ["hook", "pre-turn"]],
    ["node bin.js hook UserPromptSubmit (Node path)", process.execPath, [BIN, "hook", "UserPromptSubmit"]],
  ];
  console.log(`hooks with the daemon down, ${runs} runs each (spawn to exit, stdin fed):`);
  for (const [name, cmd, argv] of cases) {
    await timed(cmd, argv, env, event); // warm the page cache
    const ms: number[] = [];
    for (let i = 0; i < runs; i++) ms.push(await timed(cmd, argv, env, event));
    console.log(
      `  ${name.padEnd(48)} p50 ${fmtMs(median(ms))}, p95 ${fmtMs(percentile(ms, 95))}, min ${fmtMs(Math.min(...ms))}`,
    );
  }
  rmSync(home, { recursive: true, force: true });
}
