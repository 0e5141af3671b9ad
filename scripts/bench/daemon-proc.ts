import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CortexClient, probeDaemon } from "../../src/client/client.js";
import type { CortexStatus } from "../../src/rpc/protocol.js";
import { DAEMON_NODE_OPTIONS } from "../../src/service/units.js";
import { PACKAGE_ROOT } from "../../src/version.js";
import { benchPath } from "./util.js";

/** A real `cortexd run` child process with its own HOME, config and socket. */
export interface RunningDaemon {
  child: ChildProcess;
  home: string;
  socket: string;
  client: CortexClient;
  dataDir: string;
}

export interface DaemonSpec {
  home: string;
  root: string;
  provider: "none" | "auto";
  debounceMs?: number;
  /** Extra `daemon` config (e.g. reconcileIntervalMs). */
  daemon?: Record<string, unknown>;
  /** Extra top-level config (schedule, search, …). */
  extra?: Record<string, unknown>;
  /** Where the daemon's stderr goes (default: inherited). */
  stderr?: "inherit" | "ignore";
  /** Node flags added to the daemon's own (e.g. `--cpu-prof --cpu-prof-dir=DIR` to profile it). */
  nodeArgs?: string[];
  /** The package whose build runs (default: this one; another checkout's, to compare two builds). */
  packageRoot?: string;
}

/** Copies the built-in model into the daemon's data dir when a bench already built it (saves a rebuild). */
function shareBuiltinModel(home: string): void {
  const dir = join(home, "data", "cortexd", "models");
  mkdirSync(dir, { recursive: true });
  const model = join(benchPath("models"), "cortexd-glove-100d-sif.gguf");
  const dest = join(dir, "cortexd-glove-100d-sif.gguf");
  if (existsSync(model) && !existsSync(dest)) writeFileSync(dest, readFileSync(model));
}

/** The environment of a cortexd home laid out as spawnDaemon lays it out (config, data, runtime dirs inside it). */
export function cortexdEnv(home: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, "data"),
    XDG_RUNTIME_DIR: join(home, "run"),
    CORTEXD_LOG_LEVEL: "warn",
  };
}

/** How long a daemon may take to answer on its socket: a reused 1M-chunk index took over a minute on a cold page cache. */
const START_TIMEOUT_MS = 300_000;

/** Starts a daemon and returns once its socket answers (indexing may still be running). */
export async function spawnDaemon(spec: DaemonSpec): Promise<RunningDaemon> {
  const { home } = spec;
  const cfgDir = join(home, ".config", "cortexd");
  mkdirSync(cfgDir, { recursive: true });
  writeFileSync(
    join(cfgDir, "config.json"),
    JSON.stringify({
      workspaces: [{ path: spec.root }],
      embedding: { provider: spec.provider },
      daemon: { debounceMs: spec.debounceMs ?? 100, settleMs: 0, ...spec.daemon },
      ...spec.extra,
    }),
  );
  shareBuiltinModel(home);
  const env = { ...cortexdEnv(home), NODE_OPTIONS: DAEMON_NODE_OPTIONS }; // as the service files and `cortexd start` run it
  const child = spawn(
    process.execPath,
    [...(spec.nodeArgs ?? []), join(spec.packageRoot ?? PACKAGE_ROOT, "dist/src/cli/main.js"), "run"],
    {
      env,
      stdio: ["ignore", "ignore", spec.stderr ?? "inherit"],
    },
  );
  const socket = join(home, "run", "cortexd", "cortexd.sock");
  const end = Date.now() + START_TIMEOUT_MS;
  while (!(await probeDaemon(socket, 300)).up) {
    if (Date.now() > end || child.exitCode !== null) {
      child.kill("SIGKILL"); // not left running behind a bench that gave up on it
      throw new Error(`daemon did not start (exit ${child.exitCode})`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const client = await CortexClient.connect(socket, { timeoutMs: 600_000 });
  return { child, home, socket, client, dataDir: join(home, "data", "cortexd") };
}

/** True when the first workspace is fully indexed (and, with a model, fully embedded). */
export function isIndexed(st: CortexStatus, provider: "none" | "auto"): boolean {
  const w = st.workspaces[0]!;
  const synced = w.lastSync !== null && w.files > 0 && w.dirty === 0;
  return provider === "none" ? synced : synced && st.embedding.state === "ready" && w.vectors > 0 && w.pending === 0;
}

/** Polls status until the index is complete; `onTick` runs at every poll (RSS sampling). */
export async function waitIndexed(
  r: RunningDaemon,
  provider: "none" | "auto",
  onTick?: () => void,
  pollMs = 200,
): Promise<CortexStatus> {
  for (;;) {
    onTick?.();
    const st = await r.client.call("cortex.status", {});
    if (isIndexed(st, provider)) return st;
    if (r.child.exitCode !== null) throw new Error(`daemon exited (${r.child.exitCode}) while indexing`);
    await new Promise((res) => setTimeout(res, pollMs));
  }
}

export async function stopDaemon(r: RunningDaemon): Promise<void> {
  r.client.close();
  if (r.child.exitCode !== null) return;
  const exited = new Promise((res) => r.child.once("exit", res));
  r.child.kill("SIGTERM");
  await exited;
}

/** Resident and peak resident memory of a process, in MB (Linux /proc). */
export function procMemMb(pid: number): { rss: number; hwm: number } {
  try {
    const s = readFileSync(`/proc/${pid}/status`, "utf8");
    const get = (k: string) => {
      const m = new RegExp(`${k}:\\s+(\\d+) kB`).exec(s);
      return m ? Math.round(Number(m[1]) / 1024) : NaN;
    };
    return { rss: get("VmRSS"), hwm: get("VmHWM") };
  } catch {
    return { rss: NaN, hwm: NaN };
  }
}
