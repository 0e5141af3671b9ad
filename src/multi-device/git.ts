import { execFile } from "node:child_process";

/** Longest a single git command may run (a slow remote): it is killed after this. */
export const GIT_TIMEOUT_MS = 60_000;
const MAX_OUTPUT = 1024 * 1024;

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The environment git runs with: only what it needs to find itself, its config and the user's
 * credentials helpers / ssh agent; never a prompt (GIT_TERMINAL_PROMPT=0, ssh in batch mode), never a
 * GIT_DIR / GIT_WORK_TREE inherited from whoever started the daemon, stable English messages.
 */
export function gitEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const keep = [
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "XDG_CONFIG_HOME",
    "SSH_AUTH_SOCK",
    "GIT_SSH_COMMAND",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_CONFIG_GLOBAL",
  ];
  const out: NodeJS.ProcessEnv = {};
  for (const k of keep) if (env[k] !== undefined) out[k] = env[k];
  out.GIT_TERMINAL_PROMPT = "0";
  out.GIT_ASKPASS = "";
  out.SSH_ASKPASS = "";
  out.LC_ALL = "C";
  out.GIT_SSH_COMMAND ??= "ssh -o BatchMode=yes";
  return out;
}

/** Runs the system git in `cwd`, no shell, bounded time and output; resolves with its exit code (never rejects on one). */
export function runGit(
  cwd: string,
  args: readonly string[],
  opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<GitResult> {
  return new Promise((resolve) => {
    execFile(
      "git",
      [...args],
      {
        cwd,
        env: gitEnv(opts.env),
        timeout: opts.timeoutMs ?? GIT_TIMEOUT_MS,
        killSignal: "SIGKILL",
        maxBuffer: MAX_OUTPUT,
        windowsHide: true,
        shell: false,
      },
      (err, stdout, stderr) => {
        const e = err as (NodeJS.ErrnoException & { code?: number | string; killed?: boolean }) | null;
        let code = 0;
        if (e) code = typeof e.code === "number" ? e.code : -1;
        const why = e?.killed
          ? `\ngit ${args[0]} was stopped after ${Math.round((opts.timeoutMs ?? GIT_TIMEOUT_MS) / 1000)} s`
          : e && code === -1
            ? `\n${e.message}`
            : "";
        resolve({ code, stdout: String(stdout), stderr: String(stderr) + why });
      },
    );
  });
}

/** The first line of git's complaint, for a status line. */
export function gitMessage(r: GitResult): string {
  const text = `${r.stderr}\n${r.stdout}`
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("hint:"));
  return (text.find((l) => /^(fatal|error|CONFLICT)/.test(l)) ?? text[0] ?? `git exited with ${r.code}`).slice(0, 300);
}
