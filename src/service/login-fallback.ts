// eslint-disable-next-line no-restricted-imports -- /proc/version only: a kernel file (size 0 to fstat), not a workspace or config file
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join } from "node:path";

/**
 * When the service manager is not there (no systemd --user: containers, WSL without systemd, CI),
 * `cortexd service install` says so, names the exact way to start cortexd at login instead, and
 * exits with SERVICE_EXIT.noServiceManager so scripts can tell this from a real failure.
 */
export const SERVICE_EXIT = { ok: 0, failed: 1, noServiceManager: 69 } as const;

/** systemctl's own words when there is no user manager to talk to (or no systemctl at all). */
const NO_USER_MANAGER =
  /Failed to connect to bus|No medium found|System has not been booted with systemd|not been booted|DBUS_SESSION_BUS_ADDRESS|XDG_RUNTIME_DIR|Failed to connect to user scope bus|ENOENT|Host is down/i;

export function isNoUserManager(output: string): boolean {
  return NO_USER_MANAGER.test(output);
}

function isWsl(): boolean {
  try {
    return /microsoft|wsl/i.test(readFileSync("/proc/version", "utf8"));
  } catch {
    return false;
  }
}

/** The login file the user's shell reads (zsh: ~/.zprofile; bash: ~/.bash_profile when it exists, else ~/.profile). */
export function loginFile(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME || homedir();
  const shell = basename(env.SHELL ?? "");
  if (shell === "zsh") return "~/.zprofile";
  if (shell === "bash" && existsSync(join(home, ".bash_profile"))) return "~/.bash_profile";
  return "~/.profile";
}

/** The line that starts cortexd at login (quiet, never failing the login). */
export function loginLine(cortexd: string, args: string[] = []): string {
  const q = (s: string) => (/^[A-Za-z0-9_\-./:=@%+,]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return `${[cortexd, ...args].map(q).join(" ")} start >/dev/null 2>&1 || true`;
}

/** What to tell the user when systemd --user is not available. */
export function noUserManagerMessage(opts: {
  unitPath: string;
  cortexd: string;
  args?: string[];
  why: string;
  env?: NodeJS.ProcessEnv;
}): string {
  const file = loginFile(opts.env);
  const line = loginLine(opts.cortexd, opts.args);
  const lines = [
    `systemd --user is not available here (${opts.why.split("\n")[0]}): a container, WSL without systemd or CI.`,
    `The unit is written at ${opts.unitPath} for when it is. To start cortexd at login instead, run once:`,
    `  echo '${line.replace(/'/g, "'\\''")}' >> ${file}`,
    `and now: ${opts.cortexd} start`,
  ];
  if (isWsl())
    lines.push(
      "(WSL: systemd can be turned on with [boot] systemd=true in /etc/wsl.conf, then `wsl --shutdown` and run `cortexd service install` again.)",
    );
  return lines.join("\n");
}
