import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { probeDaemon, withClient } from "../../client/client.js";
import { Daemon } from "../../daemon/daemon.js";
import { isReadOnlyCode } from "../../index/db/probe-writable.js";
import { socketPathFor } from "../../daemon/socket.js";
import { startupSummary } from "../../daemon/summary.js";
import { AlreadyRunningError, lockPathFor } from "../../rpc/instance-lock.js";
import { pidAlive } from "../../util/lock-file.js";
import { readTail } from "../../util/regular-file.js";
import { DAEMON_NODE_OPTIONS } from "../../service/units.js";
import { createLogger } from "../../util/logger.js";
import { ConfigError } from "../../config/config-error.js";
import { CliError, loadForCli, type GlobalOptions } from "../context.js";
import { daemonSocket } from "../daemon-target.js";
import { errorMessage } from "../../util/error-message.js";

const MAIN = fileURLToPath(new URL("../main.js", import.meta.url));

/** Global options to forward to a background `cortexd run`. */
function forwardedArgs(opts: GlobalOptions): string[] {
  const out: string[] = [];
  if (opts.config) out.push("--config", opts.config);
  if (opts.workspace) out.push("--workspace", opts.workspace);
  if (opts.dataDir) out.push("--data-dir", opts.dataDir);
  if (opts.verbose) out.push("--verbose");
  return out;
}

export function logFile(dataDir: string): string {
  return join(dataDir, "logs", "cortexd.log");
}

async function runForeground(opts: GlobalOptions): Promise<void> {
  const loaded = loadForCli(opts);
  const logger = createLogger(opts.verbose ? "debug" : loaded.config.logLevel);
  // Signal handlers first: a SIGTERM during start-up must still end in a clean stop, not a kill.
  let daemon: Daemon | null = null;
  let pendingStop: string | null = null;
  const stop = (signal: string) => {
    if (daemon) void daemon.stop(`signal ${signal}`);
    else pendingStop = signal;
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGHUP", () => {
    if (!daemon) return;
    try {
      daemon.reload();
    } catch (e) {
      logger.error({ err: errorMessage(e) }, "config reload failed; keeping the running configuration");
      daemon.recordError(e);
    }
  });
  try {
    daemon = await Daemon.start({ loaded, logger, ...(opts.config ? { configFile: opts.config } : {}) });
  } catch (e) {
    if (e instanceof AlreadyRunningError) throw new CliError(e.message, 1);
    throw e;
  }
  if (pendingStop) void daemon.stop(`signal ${pendingStop}`);
  process.stderr.write(`cortexd ${process.pid} listening on ${daemon.socketPath}\n`);
  const running = daemon;
  // Once the start-up sync and the model load are done: what it serves (also under a service manager).
  void running.settled().then(() => {
    if (!running.stopReason) process.stderr.write(`${startupSummary(running.status())}\n`);
  });
  await running.wait();
  process.stderr.write(`cortexd ${process.pid} stopped (${running.stopReason ?? "done"})\n`);
}

async function waitFor(cond: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

async function startBackground(opts: GlobalOptions): Promise<void> {
  const loaded = loadForCli(opts);
  const socket = socketPathFor(loaded);
  const probe = await probeDaemon(socket, 1000);
  if (probe.up) {
    console.log(`cortexd is already running (pid ${probe.ping.pid}) on ${socket}`);
    return;
  }
  const log = logFile(loaded.dataDir);
  let fd: number;
  try {
    mkdirSync(join(loaded.dataDir, "logs"), { recursive: true, mode: 0o700 });
    fd = openSync(log, "a", 0o600);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "";
    if (!isReadOnlyCode(code)) throw e;
    throw new CliError(
      `cannot open the log ${log}: the data dir is read-only (${errorMessage(e)}); ` +
        `run \`cortexd run\` in the foreground or under your service manager (logs go to stderr), or make the data dir writable`,
    );
  }
  const child = spawn(process.execPath, [MAIN, "run", ...forwardedArgs(opts)], {
    detached: true,
    stdio: ["ignore", fd, fd],
    env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} ${DAEMON_NODE_OPTIONS}`.trim() },
  });
  closeSync(fd);
  let exited: number | null = null;
  child.on("exit", (code) => (exited = code ?? 1));
  child.unref();
  const up = await waitFor(async () => exited !== null || (await probeDaemon(socket, 500)).up, 30_000);
  if (!up || exited !== null) {
    const tail = (await readTail(log, { maxBytes: 64 * 1024 }).catch(() => ({ lines: [] }))).lines
      .slice(-15)
      .join("\n");
    throw new CliError(
      `cortexd did not start${exited !== null ? ` (exit code ${exited})` : " within 30 s"}; last log lines from ${log}:\n${tail}`,
    );
  }
  console.log(`cortexd started (pid ${child.pid}), socket ${socket}, logs ${log}`);
}

async function stopDaemon(opts: GlobalOptions): Promise<boolean> {
  // Only the socket is needed (found without validating the config): a typo in the config must not
  // lock the user out of the daemon that is running.
  const socket = daemonSocket(opts) ?? socketPathFor(loadForCli(opts));
  const probe = await probeDaemon(socket, 1000);
  let pid: number | undefined;
  try {
    pid = (JSON.parse(readFileSync(lockPathFor(socket), "utf8")) as { pid: number }).pid;
  } catch {
    pid = probe.up ? probe.ping.pid : undefined;
  }
  if (probe.up) {
    pid = probe.ping.pid;
    await withClient(socket, (c) => c.call("daemon.shutdown", {}), { timeoutMs: 5000 }).catch(() => {});
  } else if (pid !== undefined && pidAlive(pid)) {
    process.kill(pid, "SIGTERM"); // not answering on the socket: ask the process directly
  } else {
    console.log(
      probe.detail.startsWith("cortexd is not running") ? probe.detail : `cortexd is not running (${probe.detail})`,
    );
    return false;
  }
  const gone = await waitFor(
    async () => !(pid !== undefined && pidAlive(pid)) && !(await probeDaemon(socket, 300)).up,
    15_000,
  );
  if (!gone) throw new CliError(`cortexd (pid ${pid}) did not stop within 15 s; try \`kill ${pid}\``);
  console.log(`cortexd stopped (pid ${pid})`);
  return true;
}

export function registerDaemon(program: Command): void {
  program
    .command("run")
    .description("run the daemon in the foreground (for systemd, launchd or a terminal)")
    .action(async (_o, cmd: Command) => runForeground(cmd.optsWithGlobals<GlobalOptions>()));
  program
    .command("start")
    .description("start the daemon in the background")
    .action(async (_o, cmd: Command) => startBackground(cmd.optsWithGlobals<GlobalOptions>()));
  program
    .command("stop")
    .description("stop the background daemon")
    .action(async (_o, cmd: Command) => {
      await stopDaemon(cmd.optsWithGlobals<GlobalOptions>());
    });
  program
    .command("restart")
    .description("stop, then start the daemon")
    .action(async (_o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions>();
      // The new daemon needs a valid config: check it before stopping the one that runs.
      try {
        loadForCli(opts);
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        throw new ConfigError(
          `${e.message}; the running daemon (if any) was left as it is: fix the config (\`cortexd config validate\`) and restart, or stop it with \`cortexd stop\``,
        );
      }
      await stopDaemon(opts);
      await startBackground(opts);
    });
}
