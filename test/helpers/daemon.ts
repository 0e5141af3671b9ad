import type { ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect } from "vitest";
import { CortexClient, probeDaemon, RpcError } from "../../src/client/client.js";
import type { MethodName, MethodResults, ParamsOf } from "../../src/rpc/protocol.js";
import { isolatedEnv, spawnCli } from "./cli.js";
import { tempDir } from "./workspace.js";

export interface TestDaemon {
  home: string;
  env: Record<string, string>;
  socket: string;
  child: ChildProcess;
  stderr: () => string;
  call<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<MethodResults[M]>;
  /** Waits until the process exits; returns its exit code. */
  exited(): Promise<number | null>;
  stop(): Promise<void>;
}

export async function waitUntil(
  cond: () => Promise<boolean> | boolean,
  timeoutMs = 10_000,
  stepMs = 25,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** Writes a config file into the isolated home. */
export function writeConfig(home: string, config: unknown): void {
  const dir = join(home, ".config", "cortexd");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "config.json"), JSON.stringify(config, null, 2));
}

/**
 * For one test file: `daemonOn(root, { daemon, home })` starts a daemon on one workspace with quick
 * timings (debounce 50 ms, settle 20 ms, plus any `daemon` settings) and resolves once its startup
 * sync has finished; it, and any daemon handed to `track`, is stopped after each test.
 */
export function daemonsPerTest(): {
  daemonOn(root: string, opts?: { daemon?: Record<string, unknown>; home?: string }): Promise<TestDaemon>;
  track(d: TestDaemon): TestDaemon;
} {
  const running: TestDaemon[] = [];
  afterEach(async () => {
    for (const d of running.splice(0)) await d.stop();
  });
  const track = (d: TestDaemon) => {
    running.push(d);
    return d;
  };
  return {
    track,
    daemonOn: async (root, opts = {}) => {
      const d = track(
        await startDaemon({
          ...(opts.home ? { home: opts.home } : {}),
          config: { workspaces: [{ path: root }], daemon: { debounceMs: 50, settleMs: 20, ...opts.daemon } },
        }),
      );
      // The socket answers before the startup sync has indexed the workspace; tests start from an index.
      await waitUntil(
        async () =>
          (await d.call("cortex.status", {})).workspaces.every((w) => w.lastSync !== null || w.lastError !== null),
        30_000,
      );
      return d;
    },
  };
}

/** Starts `cortexd run` as a real child process on a temp home; resolves once the socket answers. */
export async function startDaemon(
  opts: { home?: string; config?: unknown; env?: Record<string, string>; args?: string[]; socket?: string } = {},
): Promise<TestDaemon> {
  const home = opts.home ?? tempDir("cortexd-home-");
  if (opts.config) writeConfig(home, opts.config);
  const env = isolatedEnv(home, { CORTEXD_EMBEDDING_PROVIDER: "none", ...opts.env });
  // Where the daemon listens: the default for this home, unless the config or env moves it.
  const socket = opts.socket ?? join(home, "run", "cortexd", "cortexd.sock");
  const child = spawnCli(["run", ...(opts.args ?? [])], env);
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  child.stdout!.resume();
  const exit = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  let exitedEarly = false;
  void exit.then(() => (exitedEarly = true));
  await waitUntil(async () => exitedEarly || (await probeDaemon(socket, 500)).up, 30_000);
  if (exitedEarly) throw new Error(`daemon exited during start: ${err}`);
  let client: CortexClient | null = null;
  const d: TestDaemon = {
    home,
    env,
    socket,
    child,
    stderr: () => err,
    async call(method, params) {
      client ??= await CortexClient.connect(socket, { timeoutMs: 30_000 });
      return (client.call as (m: MethodName, p: unknown) => Promise<never>)(method, params);
    },
    exited: () => exit,
    async stop() {
      client?.close();
      client = null;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exit;
      }
    },
  };
  return d;
}

/**
 * A daemon on `root` configured with a local model that cannot load (`model`: a missing or broken
 * file) and a heartbeat every second; resolves once status shows the embedding error, `files`
 * files indexed keyword-only and at least `heartbeats` heartbeats run (the provider retries).
 */
export async function startBrokenModelDaemon(opts: {
  root: string;
  model: string;
  files: number;
  heartbeats: number;
}): Promise<TestDaemon> {
  const d = await startDaemon({
    config: {
      workspaces: [{ path: opts.root }],
      embedding: { provider: "local", model: opts.model },
      schedule: { heartbeat: "* * * * * *" },
    },
    env: { CORTEXD_EMBEDDING_PROVIDER: "local" },
  });
  try {
    await waitUntil(async () => {
      const st = await d.call("cortex.status", {});
      return (
        st.embedding.state === "error" &&
        st.workspaces[0]!.files === opts.files &&
        (st.heartbeats?.length ?? 0) >= opts.heartbeats
      );
    }, 20_000);
  } catch (e) {
    await d.stop();
    throw e;
  }
  return d;
}

/** The error a call was refused with (the test fails when it was answered). */
export async function refusal(p: Promise<unknown>): Promise<RpcError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(RpcError);
  return e as RpcError;
}
