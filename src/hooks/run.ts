import { clientSocketPath } from "../client/socket-target.js";
import { RpcConnection } from "../client/connection.js";
import { DaemonUnavailableError, RpcError } from "../client/errors.js";
import { emptyOutput, hookBudgetMs, parseEvent } from "./events.js";
import { recordHookFailure, type HookFailureKind } from "./failures.js";
import { parseFlags } from "./flags.js";
import { parseInput, readStdin } from "./input.js";
import { planFor } from "./plan.js";
import { errorMessage } from "../util/error-message.js";

/**
 * `cortexd hook <event>`: reads the event JSON on stdin, talks to the daemon, prints what the agent
 * expects, and ALWAYS exits 0. When the daemon is down, slow or broken, the empty form is printed
 * (nothing for Claude Code events, {"context":"",...} / {"stored":false} for the generic ones)
 * within the event's budget (hookBudgetMs; --timeout-ms or CORTEXD_HOOK_TIMEOUT_MS for every event).
 * No daemon (no socket) means leaving at once; a timeout, an error or a dead socket is also recorded
 * for `cortexd status` (see failures.ts). Only node:net/fs/path/os are loaded here (see src/hooks/main.ts).
 * Without --workspace the event's cwd goes to the daemon, which picks the workspace containing it.
 *
 * Events: Claude Code UserPromptSubmit, SessionStart, Stop, PreCompact, SessionEnd (or `auto`:
 * from hook_event_name); generic pre-turn, post-turn, checkpoint, sleep.
 */

/** JSON-RPC's invalid-params code (src/rpc/protocol.ts ErrorCodes, not imported: keeps the hook path small). */
const INVALID_PARAMS = -32602;

export interface HookIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  write: (s: string, done: () => void) => void;
  exit: (code: number) => void;
  env: NodeJS.ProcessEnv;
  log: (s: string) => void;
}

const processIo = (): HookIo => ({
  stdin: process.stdin,
  write: (s, done) => {
    if (!s) return done();
    process.stdout.write(s.endsWith("\n") ? s : `${s}\n`, () => done());
  },
  exit: (code) => process.exit(code),
  env: process.env,
  log: (s) => process.stderr.write(`cortexd hook: ${s}\n`),
});

/** Runs one hook; resolves after the output is written (the process exits 0 right after). */
export async function runHook(args: string[], io: HookIo = processIo()): Promise<void> {
  const t0 = performance.now();
  const { positional, flags } = parseFlags(args, io.env);
  let event = parseEvent(positional[0]);
  let finished = false;
  let wire: RpcConnection | undefined;
  let socketPath: string | undefined;
  let done!: () => void;
  const ended = new Promise<void>((r) => (done = r));
  let budget = flags.timeoutMs ?? hookBudgetMs(event);
  const finish = (out: string, why?: string, failure?: HookFailureKind) => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    const ms = performance.now() - t0;
    // The failure log lives beside the socket: none when no socket path could be resolved (too long).
    const logBeside = failure ? (socketPath ?? socketPathOrNone(io.env, flags)) : undefined;
    if (failure && logBeside) {
      recordHookFailure(logBeside, {
        at: new Date().toISOString(),
        event: event ?? positional[0] ?? "?",
        kind: failure,
        message: why ?? "",
        ms,
        budgetMs: budget,
      });
    }
    if (flags.debug)
      io.log(
        `${event ?? positional[0]}: ${why ?? "ok"} in ${ms.toFixed(1)} ms (process ${performance.now().toFixed(0)} ms)`,
      );
    io.write(out, () => {
      wire?.close();
      done();
      io.exit(0);
    });
  };
  const arm = () =>
    setTimeout(
      () => finish(emptyOutput(event), `timed out after ${budget} ms`, "timeout"),
      Math.max(0, budget - (performance.now() - t0)),
    );
  let timer = arm();
  process.on("uncaughtException", (e) => finish(emptyOutput(event), `error: ${errorMessage(e)}`, "error"));
  process.on("unhandledRejection", (e) => finish(emptyOutput(event), `error: ${errorMessage(e)}`, "error"));

  try {
    if (!event) {
      finish(
        "",
        `unknown event "${positional[0] ?? ""}" (UserPromptSubmit, SessionStart, Stop, PreCompact, SessionEnd, auto, pre-turn, post-turn, checkpoint, sleep)`,
      );
      return ended;
    }
    const raw = await readStdin(io.stdin);
    const input = parseInput(raw);
    if (event === "auto") {
      event = parseEvent(typeof input.hook_event_name === "string" ? input.hook_event_name : undefined) ?? "auto";
      if (flags.timeoutMs === undefined && !finished) {
        budget = hookBudgetMs(event);
        clearTimeout(timer);
        timer = arm();
      }
    }
    const ev = event;
    const plan = planFor(ev, input, raw, flags);
    if (!plan) {
      finish(emptyOutput(ev), "nothing to do");
      return ended;
    }
    socketPath = clientSocketPath(io.env, flags);
    try {
      wire = await RpcConnection.connect(socketPath, { timeoutMs: 0 });
    } catch (e) {
      // No socket file: no daemon running, which is not a failure. Anything else (a dead socket, refused) is.
      const noDaemon = e instanceof DaemonUnavailableError && e.code === "ENOENT";
      const why =
        e instanceof DaemonUnavailableError
          ? `cortexd unreachable at ${socketPath}: ${e.code ?? e.message}`
          : errorMessage(e);
      finish(emptyOutput(ev), why, noDaemon ? undefined : "unavailable");
      return ended;
    }
    for (const n of plan.notify ?? []) wire.notify(n.method, n.params);
    let result: unknown;
    try {
      result = await wire.call(plan.method, plan.params);
    } catch (e) {
      // A daemon older than this hook (running since before an upgrade) refuses the cwd param: ask again without it.
      if (!(e instanceof RpcError && e.code === INVALID_PARAMS && /\bcwd\b/.test(e.message) && "cwd" in plan.params))
        throw e;
      const { cwd: _cwd, ...rest } = plan.params;
      result = await wire.call(plan.method, rest);
    }
    finish(plan.output(result));
  } catch (e) {
    finish(emptyOutput(event), errorMessage(e), "error");
  }
  return ended;
}

function socketPathOrNone(env: NodeJS.ProcessEnv, flags: Parameters<typeof clientSocketPath>[1]): string | undefined {
  try {
    return clientSocketPath(env, flags);
  } catch {
    return undefined;
  }
}
