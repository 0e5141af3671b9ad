import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { resolve } from "node:path";

/**
 * The real OpenClaw host, as scripts/ci/install-openclaw.sh installs it (Node 24 and the pinned
 * openclaw package in a cache dir; the script is the one place the versions are pinned).
 */

const INSTALL_SCRIPT = resolve(import.meta.dirname, "../../scripts/ci/install-openclaw.sh");

export interface OpenClawHost {
  node: string;
  mjs: string;
}

/** Where the install script puts (or put) Node 24 and openclaw; null when they are not there. */
export function findOpenClaw(): OpenClawHost | null {
  const out = spawnSync("bash", [INSTALL_SCRIPT, "--print-env"], { encoding: "utf8" }).stdout;
  const get = (k: string) => new RegExp(`${k}='([^']*)'`).exec(out)?.[1] ?? "";
  const node = process.env.CORTEXD_OPENCLAW_NODE || get("CORTEXD_OPENCLAW_NODE");
  const mjs = process.env.CORTEXD_OPENCLAW_MJS || get("CORTEXD_OPENCLAW_MJS");
  return node && mjs && existsSync(node) && existsSync(mjs) ? { node, mjs } : null;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `openclaw …` with the host's Node in its own process group; killed (the group) at the timeout. */
export function runOpenClaw(
  host: OpenClawHost,
  args: string[],
  env: Record<string, string>,
  opts: { cwd: string; timeoutMs?: number },
): Promise<RunResult> {
  return new Promise((done, fail) => {
    const child = spawn(host.node, [host.mjs, ...args], {
      env,
      cwd: opts.cwd,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => killGroup(child), opts.timeoutMs ?? 120_000);
    child.on("error", fail);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

export function killGroup(child: ChildProcess, signal: NodeJS.Signals = "SIGKILL"): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

export interface Gateway {
  child: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

/** `openclaw gateway run` on loopback; resolves once its port accepts connections. */
export async function startGateway(
  host: OpenClawHost,
  port: number,
  token: string,
  env: Record<string, string>,
  cwd: string,
  timeoutMs = 180_000,
): Promise<Gateway> {
  const child = spawn(
    host.node,
    [host.mjs, "gateway", "run", "--bind", "loopback", "--port", String(port), "--auth", "token", "--token", token],
    {
      env,
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<void>((r) => child.on("exit", () => r()));
  let gone = false;
  void exited.then(() => (gone = true));
  const gw: Gateway = {
    child,
    output: () => out,
    async stop() {
      if (!gone) {
        killGroup(child, "SIGTERM");
        const t = setTimeout(() => killGroup(child), 10_000);
        await exited;
        clearTimeout(t);
      }
      killGroup(child); // whatever the gateway started in its group
    },
  };
  const end = Date.now() + timeoutMs;
  while (!(await portOpen(port))) {
    if (gone) throw new Error(`openclaw gateway exited during start:\n${out.slice(-4000)}`);
    if (Date.now() > end) {
      await gw.stop();
      throw new Error(`openclaw gateway did not listen on ${port} within ${timeoutMs} ms:\n${out.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return gw;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((r) => {
    const s = connect({ host: "127.0.0.1", port });
    s.once("connect", () => {
      s.destroy();
      r(true);
    });
    s.once("error", () => r(false));
  });
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((r, j) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => r(port));
    });
    srv.on("error", j);
  });
}

/** The stub model as the gateway's only provider (OpenAI-compatible, on 127.0.0.1). */
export function stubModelConfig(stubUrl: string): Record<string, unknown> {
  return {
    mode: "merge",
    providers: {
      stub: {
        baseUrl: stubUrl,
        apiKey: "stub-key",
        api: "openai-completions",
        models: [
          {
            id: "stub-model",
            name: "Stub",
            reasoning: false,
            input: ["text"],
            cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
            contextWindow: 128000,
            maxTokens: 4096,
          },
        ],
      },
    },
  };
}

/** A private OpenClaw home for a headless gateway: the environment `openclaw` runs with. */
export function openClawEnv(
  host: OpenClawHost,
  home: string,
  opts: { token: string; socket: string },
): Record<string, string> {
  const state = resolve(home, ".openclaw");
  return {
    PATH: `${resolve(host.node, "..")}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    HOME: home,
    TMPDIR: process.env.TMPDIR ?? "/tmp",
    OPENCLAW_STATE_DIR: state,
    OPENCLAW_CONFIG_PATH: resolve(state, "openclaw.json"),
    OPENCLAW_NO_AUTO_UPDATE: "1",
    OPENCLAW_SKIP_CHANNELS: "1",
    OPENCLAW_SKIP_CRON: "1",
    OPENCLAW_GATEWAY_TOKEN: opts.token,
    NO_COLOR: "1",
    // The plugin finds the daemon as cortexd's own clients do.
    CORTEXD_SOCKET: opts.socket,
  };
}

/** A gateway set up for a test: its port, token and environment, and `openclaw …` runners in it. */
export interface StubGatewaySetup {
  port: number;
  token: string;
  env: Record<string, string>;
  /** Runs `openclaw …` (cwd: the test's root). */
  oc: (args: string[], timeoutMs?: number) => Promise<RunResult>;
  /** Runs `openclaw …` and throws with its output unless it exits 0. */
  ok: (args: string[]) => Promise<RunResult>;
}

/**
 * The user's gateway before the plugin: a local gateway on a free port with token auth, the
 * agent's workspace, and the stub model as its only model; `openclaw` runs in a private home that
 * finds the daemon at `socket`.
 */
export async function setUpStubGateway(
  host: OpenClawHost,
  opts: { home: string; root: string; workspace: string; stubUrl: string; socket: string; timeoutMs: number },
): Promise<StubGatewaySetup> {
  const port = await freePort();
  const token = "cortexd-test-token";
  const env = openClawEnv(host, opts.home, { token, socket: opts.socket });
  mkdirSync(env.OPENCLAW_STATE_DIR!, { recursive: true });
  writeFileSync(
    env.OPENCLAW_CONFIG_PATH!,
    JSON.stringify({
      gateway: { mode: "local", bind: "loopback", port, auth: { mode: "token", token } },
      agents: { defaults: { workspace: opts.workspace, model: { primary: "stub/stub-model" } } },
      models: stubModelConfig(opts.stubUrl),
    }),
  );
  const oc = (args: string[], timeoutMs = opts.timeoutMs) =>
    runOpenClaw(host, args, env, { cwd: opts.root, timeoutMs });
  const ok = async (args: string[]) => {
    const r = await oc(args);
    if (r.code !== 0)
      throw new Error(
        `openclaw ${args.join(" ")} exited ${r.code}:\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`,
      );
    return r;
  };
  return { port, token, env, oc, ok };
}
