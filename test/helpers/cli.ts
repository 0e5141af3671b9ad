import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";

/** The built CLI (npm test builds before running vitest). */
export const CLI = resolve(import.meta.dirname, "../../dist/src/cli/main.js");

export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` (npm test does it) before the tests`);
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `cortexd …` as a real child process with an isolated environment. */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  input?: string,
  opts: { cwd?: string } = {},
): CliResult {
  assertBuilt();
  const r = spawnSync(process.execPath, [CLI, ...args], {
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    env: { ...process.env, CORTEXD_LOG_LEVEL: "warn", ...env },
    encoding: "utf8",
    input,
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** runCli without blocking the event loop (needed when the test process owns a daemon child that must be reaped). */
export async function runCliAsync(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const child = spawnCli(args, env);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const code = await new Promise<number | null>((r) => child.on("close", (c) => r(c)));
  return { code, stdout, stderr };
}

export function spawnCli(args: string[], env: Record<string, string> = {}): ChildProcess {
  assertBuilt();
  return spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, CORTEXD_LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** An environment that keeps config, data and runtime files inside `home`. */
export function isolatedEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    HOME: home,
    XDG_CONFIG_HOME: resolve(home, ".config"),
    XDG_DATA_HOME: resolve(home, ".local/share"),
    XDG_RUNTIME_DIR: resolve(home, "run"),
    ...extra,
  };
}
