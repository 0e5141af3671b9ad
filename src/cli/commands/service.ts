import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import {
  LAUNCHD_LABEL,
  SYSTEMD_UNIT,
  launchdPlist,
  serviceFilePath,
  systemdUnit,
  type ServiceSpec,
} from "../../service/units.js";
import { cortexdCommand, devCheckoutNote, selfInstall } from "../../install/self.js";
import { SERVICE_EXIT, isNoUserManager, noUserManagerMessage } from "../../service/login-fallback.js";
import { missingRootProblem } from "../../workspace/resolve.js";
import { CliError, loadForCli, printJson, type GlobalOptions } from "../context.js";

export interface ServiceOptions extends GlobalOptions {
  dryRun?: boolean;
  enable?: boolean;
}

/** The service's PATH: this node's directory, then the usual system ones, each once. */
export function servicePath(nodeDir: string): string {
  return [...new Set([nodeDir, "/usr/local/bin", "/usr/bin", "/bin"])].join(":");
}

function spec(opts: GlobalOptions): ServiceSpec {
  const args: string[] = [];
  if (opts.config) args.push("--config", resolve(opts.config));
  if (opts.dataDir) args.push("--data-dir", resolve(opts.dataDir));
  for (const w of opts.workspaces ?? [])
    args.push("--workspace", loadForCli({ ...opts, workspaces: [w], workspace: w }).selected.path);
  return {
    node: process.execPath,
    main: fileURLToPath(new URL("../main.js", import.meta.url)),
    args,
    env: { PATH: servicePath(dirname(process.execPath)) },
    docs: join(selfInstall().root, "docs", "cli.md"),
  };
}

/** The global flags the login line passes on (the same the unit runs with). */
function loginArgs(opts: GlobalOptions): string[] {
  return [
    ...(opts.config ? ["--config", resolve(opts.config)] : []),
    ...(opts.dataDir ? ["--data-dir", resolve(opts.dataDir)] : []),
  ];
}

function run(cmd: string, args: string[]): { ok: boolean; out: string } {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  return { ok: r.status === 0, out: `${r.stdout ?? ""}${r.stderr ?? ""}`.trim() || (r.error?.message ?? "") };
}

export interface ServiceInstallResult {
  path: string;
  content: string;
  written: boolean;
  /** What the service manager did ("enabled and started cortexd.service"), when asked to. */
  enabled?: string;
  /** The file is in place but the service manager could not enable it: why, and what to do. */
  problem?: string;
  /** There is no service manager to enable it (no systemd --user): problem says how to start at login instead. */
  noServiceManager?: boolean;
  /** Set when the paths written point into a development checkout. */
  note?: string;
}

/** Writes the service file (unless dryRun) and enables it (unless enable is false); refuses a missing workspace. */
export function installService(opts: ServiceOptions): ServiceInstallResult {
  const platform = process.platform;
  if (platform !== "linux" && platform !== "darwin")
    throw new CliError(`service install supports Linux (systemd) and macOS (launchd), not ${platform}`);
  // A service on a workspace that is not there would index nothing, at every login: say so now.
  const loaded = loadForCli(opts);
  const missing = loaded.config.workspaces.flatMap((w) => missingRootProblem(w.path) ?? []);
  if (missing.length) throw new CliError(`not installing the service: ${missing.join("; ")}`);
  const content = platform === "darwin" ? launchdPlist(spec(opts)) : systemdUnit(spec(opts));
  const path = serviceFilePath(platform);
  if (opts.dryRun) return { path, content, written: false };
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, content, { mode: 0o644 });
  renameSync(tmp, path);
  if (opts.enable === false) return { path, content, written: true };
  const steps: [string, string[]][] =
    platform === "darwin"
      ? [["launchctl", ["bootstrap", `gui/${process.getuid?.() ?? 0}`, path]]]
      : [
          ["systemctl", ["--user", "daemon-reload"]],
          ["systemctl", ["--user", "enable", "--now", SYSTEMD_UNIT]],
        ];
  const note = devCheckoutNote();
  for (const [c, a] of steps) {
    const r = run(c, a);
    if (!r.ok && platform === "linux" && isNoUserManager(r.out))
      return {
        path,
        content,
        written: true,
        noServiceManager: true,
        problem: noUserManagerMessage({ unitPath: path, cortexd: cortexdCommand(), args: loginArgs(opts), why: r.out }),
        ...(note ? { note } : {}),
      };
    if (!r.ok)
      return {
        path,
        content,
        written: true,
        problem: `could not run \`${c} ${a.join(" ")}\`: ${r.out}; the file is in place: enable it by hand when the service manager is available`,
      };
  }
  return {
    path,
    content,
    written: true,
    ...(note ? { note } : {}),
    enabled: platform === "darwin" ? `loaded ${LAUNCHD_LABEL}` : `enabled and started ${SYSTEMD_UNIT}`,
  };
}

export function registerService(program: Command): void {
  const service = program
    .command("service")
    .description("run cortexd at login (systemd user unit on Linux, launchd agent on macOS)");
  service
    .command("install")
    .description("write the service file and enable it")
    .option("--dry-run", "print the file instead of writing it")
    .option("--no-enable", "write the file but do not enable/start it")
    .action((_o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<ServiceOptions>();
      const r = installService(opts);
      if (opts.json) printJson(r);
      else if (!r.written) process.stdout.write(`# ${r.path}\n${r.content}`);
      else console.log(`wrote ${r.path}${r.enabled ? `; ${r.enabled}` : ""}${r.problem ? `\n${r.problem}` : ""}`);
      if (r.note && !opts.json) process.stderr.write(`cortexd: note: ${r.note}\n`);
      if (r.problem) process.exitCode = r.noServiceManager ? SERVICE_EXIT.noServiceManager : SERVICE_EXIT.failed;
    });
  service
    .command("uninstall")
    .description("stop, disable and remove the service file")
    .option("--dry-run", "say what would be done")
    .action((_o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<ServiceOptions>();
      const platform = process.platform;
      const path = serviceFilePath(platform);
      if (opts.dryRun) {
        console.log(`would stop and disable the service and remove ${path}`);
        return;
      }
      if (platform === "darwin") run("launchctl", ["bootout", `gui/${process.getuid?.() ?? 0}/${LAUNCHD_LABEL}`]);
      else run("systemctl", ["--user", "disable", "--now", SYSTEMD_UNIT]);
      if (existsSync(path)) {
        rmSync(path);
        console.log(`removed ${path}`);
      } else console.log(`no service file at ${path}`);
      if (platform === "linux") run("systemctl", ["--user", "daemon-reload"]);
    });
}
