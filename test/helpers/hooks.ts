import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { assertBuilt } from "./cli.js";

/** The installed `cortexd` executable (dispatches `hook` to the lean entry). */
export const BIN = resolve(import.meta.dirname, "../../dist/src/cli/bin.js");
/** The package's `cortexd` / `cortexd-hook` executable: a sh launcher (answers hooks itself when no daemon socket exists). */
export const LAUNCHER = resolve(import.meta.dirname, "../../bin/cortexd");
/** The lean Node hook entry (what `cortexd-hook` runs in Node). */
export const HOOK_MAIN = resolve(import.meta.dirname, "../../dist/src/hooks/main.js");
export const CC_FIXTURES = resolve(import.meta.dirname, "../fixtures/claude-code");

export interface HookRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall time from spawn to exit. */
  ms: number;
  /** An error writing stdin (e.g. EPIPE: the hook left without reading it). */
  stdinError?: string;
}

/** Runs a command as a real child process, feeding stdin, timing it from spawn to exit. */
export function runTimed(
  cmd: string,
  args: string[],
  env: Record<string, string>,
  input = "",
  opts: { shell?: boolean } = {},
): Promise<HookRun> {
  assertBuilt();
  return new Promise((done, fail) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(cmd, args, {
      env: { ...process.env, CORTEXD_LOG_LEVEL: "warn", ...env },
      stdio: ["pipe", "pipe", "pipe"],
      shell: opts.shell ?? false,
    });
    let stdout = "";
    let stderr = "";
    let stdinError: string | undefined;
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", fail);
    child.on("close", (code, signal) =>
      done({
        code,
        signal,
        stdout,
        stderr,
        ms: Number(process.hrtime.bigint() - t0) / 1e6,
        ...(stdinError ? { stdinError } : {}),
      }),
    );
    child.stdin.on("error", (e: NodeJS.ErrnoException) => (stdinError = e.code ?? e.message)); // a hook may leave before reading everything
    child.stdin.end(input);
  });
}

/** `cortexd hook <event> [args]` through the package's launcher, with the event JSON on stdin. */
export function runHook(
  event: string,
  input: unknown,
  env: Record<string, string>,
  args: string[] = [],
): Promise<HookRun> {
  const stdin = typeof input === "string" ? input : JSON.stringify(input);
  return runTimed(LAUNCHER, ["hook", event, ...args], { CORTEXD_NODE: process.execPath, ...env }, stdin);
}

/** A recorded Claude Code event, with fields replaced (e.g. transcript_path). */
export function ccEvent(name: string, patch: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...(JSON.parse(readFileSync(join(CC_FIXTURES, `${name}.json`), "utf8")) as Record<string, unknown>),
    ...patch,
  };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/**
 * A `node` for CORTEXD_NODE that logs each start ("<args>" per line in the returned log file)
 * before running the real one: tells whether the launcher answered a hook itself or started Node.
 */
export function nodeSpy(dir: string): { node: string; calls: () => string[] } {
  const node = join(dir, "node-spy");
  const log = join(dir, "node-calls.log");
  writeFileSync(node, `#!/bin/sh\necho "$*" >> '${log}'\nexec '${process.execPath}' "$@"\n`, { mode: 0o755 });
  return {
    node,
    calls: () =>
      existsSync(log)
        ? readFileSync(log, "utf8")
            .split("\n")
            .filter((l) => l)
        : [],
  };
}
