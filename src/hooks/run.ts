import { claudeContextOutput, postTurnOutput, preTurnOutput } from "./format.js";
import { hookSocketPath } from "./socket.js";
import { connectWire, WireError, type Wire } from "./wire.js";
import { recordHookFailure, type HookFailureKind } from "./failures.js";
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

/**
 * Budgets (connect + call, from the hook's own start): a context hook delays the user's prompt, so
 * it gets little more than a loaded machine needs (see docs/integrations.md for the measurements);
 * capture-type hooks run in the background (Stop is async) or at a pause (PreCompact, SessionEnd),
 * so they wait for the daemon's answer, indexing included.
 */
export const CONTEXT_HOOK_BUDGET_MS = 1500;
export const CAPTURE_HOOK_BUDGET_MS = 8000;

export function hookBudgetMs(event: string | undefined): number {
  return event === "UserPromptSubmit" || event === "SessionStart" || event === "pre-turn"
    ? CONTEXT_HOOK_BUDGET_MS
    : CAPTURE_HOOK_BUDGET_MS;
}

const MAX_STDIN_BYTES = 16 * 1024 * 1024;
/** JSON-RPC's invalid-params code (src/rpc/protocol.ts ErrorCodes, not imported: it loads zod). */
const INVALID_PARAMS = -32602;
/** The daemon's limit for a path param. */
const MAX_PATH_CHARS = 4096;
/** Recall looks at the start of a prompt; pasted walls of text add nothing but time. */
const MAX_QUERY_CHARS = 4000;

type Event =
  | "UserPromptSubmit"
  | "SessionStart"
  | "Stop"
  | "SubagentStop"
  | "PreCompact"
  | "SessionEnd"
  | "pre-turn"
  | "post-turn"
  | "checkpoint"
  | "sleep"
  | "auto";

const EVENTS: Record<string, Event> = {
  userpromptsubmit: "UserPromptSubmit",
  sessionstart: "SessionStart",
  stop: "Stop",
  subagentstop: "SubagentStop",
  precompact: "PreCompact",
  sessionend: "SessionEnd",
  preturn: "pre-turn",
  postturn: "post-turn",
  checkpoint: "checkpoint",
  sleep: "sleep",
  auto: "auto",
  claudecode: "auto",
};

export function parseEvent(name: string | undefined): Event | undefined {
  const key = name?.toLowerCase().replace(/[-_\s]/g, "");
  return key && Object.hasOwn(EVENTS, key) ? EVENTS[key] : undefined;
}

interface HookFlags {
  /** An explicit budget for every event (else hookBudgetMs). */
  timeoutMs?: number;
  workspace?: string;
  socket?: string;
  config?: string;
  dataDir?: string;
  budget?: number;
  scope?: "private" | "group";
  debug: boolean;
}

function parseFlags(args: string[], env: NodeJS.ProcessEnv): { positional: string[]; flags: HookFlags } {
  const positional: string[] = [];
  const flags: HookFlags = { debug: !!env.CORTEXD_HOOK_DEBUG };
  const envTimeout = numberOr(env.CORTEXD_HOOK_TIMEOUT_MS, -1);
  if (envTimeout >= 0) flags.timeoutMs = envTimeout;
  if (env.CORTEXD_HOOK_WORKSPACE) flags.workspace = env.CORTEXD_HOOK_WORKSPACE;
  if (env.CORTEXD_HOOK_BUDGET) flags.budget = numberOr(env.CORTEXD_HOOK_BUDGET, 2000);
  if (env.CORTEXD_HOOK_SCOPE === "group" || env.CORTEXD_HOOK_SCOPE === "private") flags.scope = env.CORTEXD_HOOK_SCOPE;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = a.indexOf("=");
    const name = a.startsWith("--") && eq > 0 ? a.slice(0, eq) : a;
    const value = () => (a.startsWith("--") && eq > 0 ? a.slice(eq + 1) : args[++i]);
    switch (name) {
      case "--timeout-ms":
        flags.timeoutMs = numberOr(value(), flags.timeoutMs ?? -1);
        if (flags.timeoutMs < 0) delete flags.timeoutMs;
        break;
      case "-w":
      case "--workspace":
        flags.workspace = value();
        break;
      case "--socket":
        flags.socket = value();
        break;
      case "-c":
      case "--config":
        flags.config = value();
        break;
      case "--data-dir":
        flags.dataDir = value();
        break;
      case "--budget":
        flags.budget = numberOr(value(), 2000);
        break;
      case "--scope": {
        const s = value();
        if (s === "group" || s === "private") flags.scope = s;
        break;
      }
      case "--debug":
        flags.debug = true;
        break;
      default:
        if (!a.startsWith("-")) positional.push(a);
    }
  }
  return { positional, flags };
}

function numberOr(v: string | undefined, dflt: number): number {
  const n = Number(v);
  return v !== undefined && v !== "" && Number.isFinite(n) && n >= 0 ? n : dflt;
}

/** What each event prints when there is nothing to say (or the daemon is unavailable). */
function emptyOutput(event: Event | undefined): string {
  if (event === "pre-turn") return preTurnOutput();
  if (event === "post-turn" || event === "checkpoint") return postTurnOutput(false);
  if (event === "sleep") return JSON.stringify({ ok: false });
  return "";
}

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
  let wire: Wire | undefined;
  let socketPath: string | undefined;
  let done!: () => void;
  const ended = new Promise<void>((r) => (done = r));
  let budget = flags.timeoutMs ?? hookBudgetMs(event);
  const finish = (out: string, why?: string, failure?: HookFailureKind) => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    const ms = performance.now() - t0;
    if (failure) {
      recordHookFailure(socketPath ?? hookSocketPath(io.env, flags), {
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
    socketPath = hookSocketPath(io.env, flags);
    try {
      wire = await connectWire(socketPath);
    } catch (e) {
      // No socket file: no daemon running, which is not a failure. Anything else (a dead socket, refused) is.
      const noDaemon = e instanceof WireError && e.kind === "unavailable" && e.code === "ENOENT";
      finish(emptyOutput(ev), errorMessage(e), noDaemon ? undefined : "unavailable");
      return ended;
    }
    for (const n of plan.notify ?? []) wire.notify(n.method, n.params);
    let result: unknown;
    try {
      result = await wire.call(plan.method, plan.params);
    } catch (e) {
      // A daemon older than this hook (running since before an upgrade) refuses the cwd param: ask again without it.
      if (!(e instanceof WireError && e.code === INVALID_PARAMS && /\bcwd\b/.test(e.message) && "cwd" in plan.params))
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

interface Plan {
  method: string;
  params: Record<string, unknown>;
  notify?: { method: string; params: Record<string, unknown> }[];
  output: (result: unknown) => string;
}

type Input = Record<string, unknown>;

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** The daemon call for an event, or null when there is nothing to do. */
function planFor(event: Event, input: Input, raw: string, flags: HookFlags): Plan | null {
  const rawCwd = str(input.cwd);
  const cwd = rawCwd && rawCwd.length <= MAX_PATH_CHARS && !rawCwd.includes("\0") ? rawCwd : undefined;
  // An explicit workspace wins; else the daemon picks the workspace containing the session's cwd.
  const ws = flags.workspace ? { workspace: flags.workspace } : cwd ? { cwd } : {};
  const session_id = str(input.session_id) ?? str(input.sessionId) ?? str(input.session);
  const transcript_path = str(input.transcript_path) ?? str(input.transcriptPath);
  const recallParams = (query: string) => ({
    query: query.slice(0, MAX_QUERY_CHARS),
    ...(flags.budget ? { budgetTokens: flags.budget } : {}),
    ...(flags.scope ? { scope: flags.scope } : {}),
    ...ws,
  });
  const touch = (prompt: string) =>
    session_id
      ? [
          {
            method: "session.touch",
            params: { session_id, prompt: prompt.slice(0, MAX_QUERY_CHARS), ...(cwd ? { cwd } : {}), ...ws },
          },
        ]
      : [];
  switch (event) {
    case "UserPromptSubmit": {
      const prompt = str(input.prompt)?.trim();
      if (!prompt || prompt.startsWith("/")) return null;
      return {
        method: "memory.recall",
        params: recallParams(prompt),
        notify: touch(prompt),
        output: (r) => {
          const context = (r as { context?: string }).context ?? "";
          return context ? claudeContextOutput("UserPromptSubmit", context) : "";
        },
      };
    }
    case "SessionStart": {
      if (!session_id) return null;
      return {
        method: "session.start",
        params: { session_id, ...(str(input.source) ? { source: input.source } : {}), ...(cwd ? { cwd } : {}), ...ws },
        output: (r) => {
          const { recovery, checkpoint, context } = r as { recovery?: string; checkpoint?: string; context?: string };
          const text = [recovery, checkpoint, context].filter((s) => !!s).join("\n\n");
          return text ? claudeContextOutput("SessionStart", text) : "";
        },
      };
    }
    case "Stop":
    case "SubagentStop": {
      // A Stop hook that made Claude continue fires again with stop_hook_active: leave at once.
      if (input.stop_hook_active === true || event === "SubagentStop" || !session_id || !transcript_path) return null;
      return { method: "memory.capture", params: { session_id, transcript_path, ...ws }, output: () => "" };
    }
    case "PreCompact": {
      if (!session_id || !transcript_path) return null;
      return { method: "session.checkpoint", params: { session_id, transcript_path, ...ws }, output: () => "" };
    }
    case "SessionEnd": {
      if (!session_id) return null;
      const reason = str(input.reason);
      return {
        method: "session.sleep",
        params: {
          session_id,
          ...(transcript_path ? { transcript_path } : {}),
          ...(reason ? { reason: reason.slice(0, 64) } : {}),
          ...ws,
        },
        output: () => "",
      };
    }
    case "pre-turn": {
      const prompt = (
        str(input.prompt) ??
        str(input.message) ??
        str(input.query) ??
        str(input.user_message) ??
        str(input.input) ??
        (isJson(raw) ? "" : raw)
      ).trim();
      if (!prompt) return null;
      const budget =
        typeof input.token_budget === "number"
          ? input.token_budget
          : typeof input.budget === "number"
            ? input.budget
            : undefined;
      return {
        method: "memory.recall",
        params: { ...recallParams(prompt), ...(budget && budget > 0 ? { budgetTokens: Math.floor(budget) } : {}) },
        notify: touch(prompt),
        output: (r) => preTurnOutput(r as { context: string; memory_count: number; tokens_used: number }),
      };
    }
    case "post-turn":
    case "checkpoint":
    case "sleep": {
      const source = messagesOf(input, transcript_path);
      const sid = session_id ?? "generic";
      if (event === "post-turn") {
        if (!source) return null;
        return {
          method: "memory.capture",
          params: { session_id: sid, ...source, ...ws },
          output: (r) => postTurnOutput((r as { stored?: boolean }).stored === true),
        };
      }
      if (event === "checkpoint") {
        return {
          method: "session.checkpoint",
          params: { session_id: sid, ...(source ?? {}), ...ws },
          output: (r) => postTurnOutput((r as { stored?: boolean }).stored === true),
        };
      }
      return {
        method: "session.sleep",
        params: { session_id: sid, ...(source ?? {}), ...ws },
        output: (r) => JSON.stringify({ ok: (r as { ok?: boolean }).ok === true }),
      };
    }
    default:
      return null;
  }
}

/** messages / transcript_path, or a {user_message, assistant_message} pair, as capture params. */
function messagesOf(
  input: Input,
  transcript_path: string | undefined,
): { messages: unknown[] } | { transcript_path: string } | null {
  if (Array.isArray(input.messages)) return { messages: input.messages };
  if (transcript_path) return { transcript_path };
  const user = str(input.user_message) ?? str(input.prompt) ?? str(input.user) ?? str(input.input);
  const assistant =
    str(input.assistant_message) ??
    str(input.response) ??
    str(input.assistant) ??
    str(input.output) ??
    str(input.last_assistant_message);
  if (!user || !assistant) return null;
  return {
    messages: [
      { role: "user", content: user },
      { role: "assistant", content: assistant },
    ],
  };
}

function isJson(raw: string): boolean {
  const t = raw.trim();
  return t.startsWith("{") || t.startsWith("[");
}

function parseInput(raw: string): Input {
  if (!isJson(raw)) return {};
  try {
    const v: unknown = JSON.parse(raw);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Input) : {};
  } catch {
    return {};
  }
}

/** Reads stdin to the end ("" for a terminal); the overall deadline bounds the wait. */
function readStdin(stdin: HookIo["stdin"]): Promise<string> {
  if (stdin.isTTY) return Promise.resolve("");
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let bytes = 0;
    stdin.on("data", (d: Buffer | string) => {
      const b = typeof d === "string" ? Buffer.from(d) : d;
      if (bytes + b.length <= MAX_STDIN_BYTES) parts.push(b);
      bytes += b.length;
    });
    stdin.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    stdin.on("error", () => resolve(Buffer.concat(parts).toString("utf8")));
  });
}
