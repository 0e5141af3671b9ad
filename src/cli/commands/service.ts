import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { LAUNCHD_LABEL, SYSTEMD_UNIT, launchdPlist, serviceFilePath, systemdUnit, type ServiceSpec } from "../../service/units.js";
import { CliError, type GlobalOptions } from "../context.js";

interface ServiceOptions extends GlobalOptions {
  dryRun?: boolean;
  enable?: boolean;
}

function spec(opts: GlobalOptions): ServiceSpec {
  const args: string[] = [];
  if (opts.config) args.push("--config", resolve(opts.config));
  if (opts.dataDir) args.push("--data-dir", resolve(opts.dataDir));
  if (opts.workspace) args.push("--workspace", resolve(opts.workspace));
  return {
    node: process.execPath,
    main: fileURLToPath(new URL("../main.js", import.meta.url)),
    args,
    env: { PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin` },
  };
}

function run(cmd: string, args: string[]): { ok: boolean; out: string } {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  return { ok: r.status === 0, out: `${r.stdout ?? ""}${r.stderr ?? ""}`.trim() || (r.error?.message ?? "") };
}

export function registerService(program: Command): void {
  const service = program.command("service").description("run cortexd at login (systemd user unit on Linux, launchd agent on macOS)");
  service
    .command("install")
    .description("write the service file and enable it")
    .option("--dry-run", "print the file instead of writing it")
    .option("--no-enable", "write the file but do not enable/start it")
    .action((_o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<ServiceOptions>();
      const platform = process.platform;
      if (platform !== "linux" && platform !== "darwin") throw new CliError(`service install supports Linux (systemd) and macOS (launchd), not ${platform}`);
      const content = platform === "darwin" ? launchdPlist(spec(opts)) : systemdUnit(spec(opts));
      const path = serviceFilePath(platform);
      if (opts.dryRun) {
        process.stdout.write(`# ${path}\n${content}`);
        return;
      }
      mkdirSync(dirname(path), { recursive: true });
      const tmp = `${path}.tmp-${process.pid}`;
      writeFileSync(tmp, content, { mode: 0o644 });
      renameSync(tmp, path);
      console.log(`wrote ${path}`);
      if (opts.enable === false) return;
      const steps: [string, string[]][] =
        platform === "darwin"
          ? [["launchctl", ["bootstrap", `gui/${process.getuid?.() ?? 0}`, path]]]
          : [
              ["systemctl", ["--user", "daemon-reload"]],
              ["systemctl", ["--user", "enable", "--now", SYSTEMD_UNIT]],
            ];
      for (const [c, a] of steps) {
        const r = run(c, a);
        if (!r.ok) {
          console.log(`could not run \`${c} ${a.join(" ")}\`: ${r.out}\nthe file is in place; enable it by hand when the service manager is available`);
          process.exitCode = 1;
          return;
        }
      }
      console.log(platform === "darwin" ? `loaded ${LAUNCHD_LABEL}` : `enabled and started ${SYSTEMD_UNIT}`);
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
