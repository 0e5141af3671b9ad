import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Node flags for the long-running daemon: a young generation of 8 MB semi-spaces, half V8's
 * default (which keeps up to 3×16 MB after a large index), large enough that back-to-back recalls
 * (~1 MB of short-lived objects each) are not paid for in a scavenge every other request (at 2 MB:
 * recall p50 over the socket 4.6–5.0 ms against 4.2 at 8 MB, idle RSS within the runs' noise; see
 * docs/performance.md); --expose-gc lets the daemon give memory back after a burst of work
 * (daemon/memory-compactor). Passed as NODE_OPTIONS by the service files and `cortexd start`.
 */
export const DAEMON_NODE_OPTIONS = "--max-semi-space-size=8 --expose-gc";

export const LAUNCHD_LABEL = "dev.cortexd.cortexd";
export const SYSTEMD_UNIT = "cortexd.service";

export interface ServiceSpec {
  /** Absolute path of the node binary. */
  node: string;
  /** Absolute path of dist/src/cli/main.js. */
  main: string;
  /** Extra arguments after `run` (e.g. --config FILE). */
  args?: string[];
  /** Environment for the service (PATH is set by default). */
  env?: Record<string, string>;
  /** The installed docs page on running at login (systemd's Documentation=, a file: URI); none in the reference copies. */
  docs?: string;
  /** Where launchd writes stdout/stderr (systemd uses the journal). */
  logDir?: string;
}

function systemdQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `"${arg.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** A systemd user unit: started at login, restarted on failure, logs to the journal. */
export function systemdUnit(spec: ServiceSpec): string {
  const exec = [spec.node, spec.main, "run", ...(spec.args ?? [])].map(systemdQuote).join(" ");
  const env = Object.entries({ NODE_OPTIONS: DAEMON_NODE_OPTIONS, ...spec.env }).map(
    ([k, v]) => `Environment=${systemdQuote(`${k}=${v}`)}`,
  );
  return [
    "[Unit]",
    "Description=cortexd: local memory engine for AI agents",
    ...(spec.docs ? [`Documentation=${systemdQuote(`file:${spec.docs}`)}`] : []),
    "",
    "[Service]",
    "Type=simple",
    `ExecStart=${exec}`,
    "ExecReload=/bin/kill -HUP $MAINPID",
    ...env,
    "Restart=on-failure",
    "RestartSec=2",
    "TimeoutStopSec=20",
    "KillSignal=SIGTERM",
    "UMask=0077",
    "NoNewPrivileges=true",
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  ].join("\n");
}

function xml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** A launchd agent: RunAtLoad, KeepAlive (restart unless it exited cleanly), logs to files. */
export function launchdPlist(spec: ServiceSpec): string {
  const args = [spec.node, spec.main, "run", ...(spec.args ?? [])];
  const logDir = spec.logDir ?? join(homedir(), "Library", "Logs", "cortexd");
  const env = Object.entries({ NODE_OPTIONS: DAEMON_NODE_OPTIONS, ...spec.env });
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">`,
    `<plist version="1.0">`,
    `<dict>`,
    `  <key>Label</key>`,
    `  <string>${LAUNCHD_LABEL}</string>`,
    `  <key>ProgramArguments</key>`,
    `  <array>`,
    ...args.map((a) => `    <string>${xml(a)}</string>`),
    `  </array>`,
    ...(env.length
      ? [
          `  <key>EnvironmentVariables</key>`,
          `  <dict>`,
          ...env.flatMap(([k, v]) => [`    <key>${xml(k)}</key>`, `    <string>${xml(v)}</string>`]),
          `  </dict>`,
        ]
      : []),
    `  <key>RunAtLoad</key>`,
    `  <true/>`,
    `  <key>KeepAlive</key>`,
    `  <dict>`,
    `    <key>SuccessfulExit</key>`,
    `    <false/>`,
    `  </dict>`,
    `  <key>ThrottleInterval</key>`,
    `  <integer>5</integer>`,
    `  <key>ProcessType</key>`,
    `  <string>Background</string>`,
    `  <key>Umask</key>`,
    `  <integer>63</integer>`,
    `  <key>StandardOutPath</key>`,
    `  <string>${xml(join(logDir, "cortexd.log"))}</string>`,
    `  <key>StandardErrorPath</key>`,
    `  <string>${xml(join(logDir, "cortexd.log"))}</string>`,
    `</dict>`,
    `</plist>`,
    "",
  ].join("\n");
}

/** Where the service file goes for this user. */
export function serviceFilePath(platform: NodeJS.Platform, env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME || homedir();
  if (platform === "darwin") return join(home, "Library", "LaunchAgents", `${LAUNCHD_LABEL}.plist`);
  const configHome = env.XDG_CONFIG_HOME || join(home, ".config");
  return join(configHome, "systemd", "user", SYSTEMD_UNIT);
}

/**
 * The spec of the reference files shipped in systemd/ and launchd/: `cortexd` found on PATH (npm i -g).
 * `cortexd service install` writes the same files with this machine's absolute paths instead.
 */
export const REFERENCE_SPEC: ServiceSpec = {
  node: "/usr/bin/env",
  main: "cortexd",
  env: { PATH: "/usr/local/bin:/usr/bin:/bin" },
};
