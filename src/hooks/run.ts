import { claudeContextOutput, postTurnOutput, preTurnOutput } from "./format.js";
import { hookSocketPath } from "./socket.js";
import { connectWire, type Wire } from "./wire.js";
import { errorMessage } from "../util/error-message.js";

/**
 * `cortexd hook <event>`: reads the event JSON on stdin, talks to the daemon, prints what the agent
 * expects, and ALWAYS exits 0. When the daemon is down, slow or broken, the empty form is printed
 * (nothing for Claude Code events, {"context":"",...} / {"stored":false} for the generic ones)
 * within the timeout (default 80 ms for connect + call, --timeout-ms or CORTEXD_HOOK_TIMEOUT_MS).
 * Capture-type events hand the request to the daemon and leave: the daemon finishes it even if the
 * hook has gone. Only node:net/fs/path/os are loaded here (see src/hooks/main.ts).
 *
 * Events: Claude Code UserPromptSubmit, SessionStart, Stop, PreCompact, SessionEnd (or `auto`:
 * from hook_event_name); generic pre-turn, post-turn, checkpoint, sleep.
 */

export const DEFAULT_HOOK_TIMEOUT_MS = 80;
const MAX_STDIN_BYTES = 16 * 1024 * 1024;
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
  timeoutMs: number;
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
  const flags: HookFlags = { timeoutMs: numberOr(env.CORTEXD_HOOK_TIMEOUT_MS, DEFAULT_HOOK_TIMEOUT_MS), debug: !!env.CORTEXD_HOOK_DEBUG };
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
        flags.timeoutMs = numberOr(value(), flags.timeoutMs);
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
  let done!: () => void;
  const ended = new Promise<void>((r) => (done = r));
  const finish = (out: string, why?: string) => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    if (flags.debug) io.log(`${event ?? positional[0]}: ${why ?? "ok"} in ${(performance.now() - t0).toFixed(1)} ms (process ${performance.now().toFixed(0)} ms)`);
    io.write(out, () => {
      wire?.close();
      done();
      io.exit(0);
    });
  };
  const timer = setTimeout(() => finish(emptyOutput(event), `timed out after ${flags.timeoutMs} ms`), flags.timeoutMs);
  process.on("uncaughtException", (e) => finish(emptyOutput(event), `error: ${e.message}`));
  process.on("unhandledRejection", (e) => finish(emptyOutput(event), `error: ${(e as Error)?.message ?? e}`));

  try {
    if (!event) {
      finish("", `unknown event "${positional[0] ?? ""}" (UserPromptSubmit, SessionStart, Stop, PreCompact, SessionEnd, auto, pre-turn, post-turn, checkpoint, sleep)`);
      return ended;
    }
    const raw = await readStdin(io.stdin);
    const input = parseInput(raw);
    if (event === "auto") event = parseEvent(typeof input.hook_event_name === "string" ? input.hook_event_name : undefined) ?? "auto";
    const ev = event;
    const plan = planFor(ev, input, raw, flags);
    if (!plan) {
      finish(emptyOutput(ev), "nothing to do");
      return ended;
    }
    wire = await connectWire(hookSocketPath(io.env, flags));
    for (const n of plan.notify ?? []) wire.notify(n.method, n.params);
    const result = await wire.call(plan.method, plan.params);
    finish(plan.output(result));
  } catch (e) {
    finish(emptyOutput(event), errorMessage(e));
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
  const ws = flags.workspace ? { workspace: flags.workspace } : {};
  const session_id = str(input.session_id) ?? str(input.sessionId) ?? str(input.session);
  const transcript_path = str(input.transcript_path) ?? str(input.transcriptPath);
  const cwd = str(input.cwd);
  const recallParams = (query: string) => ({
    query: query.slice(0, MAX_QUERY_CHARS),
    ...(flags.budget ? { budgetTokens: flags.budget } : {}),
    ...(flags.scope ? { scope: flags.scope } : {}),
    ...ws,
  });
  const touch = (prompt: string) =>
    session_id ? [{ method: "session.touch", params: { session_id, prompt: prompt.slice(0, MAX_QUERY_CHARS), ...(cwd ? { cwd } : {}), ...ws } }] : [];
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
          const { recovery, context } = r as { recovery?: string; context?: string };
          const text = [recovery, context].filter((s) => !!s).join("\n\n");
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
        params: { session_id, ...(transcript_path ? { transcript_path } : {}), ...(reason ? { reason: reason.slice(0, 64) } : {}), ...ws },
        output: () => "",
      };
    }
    case "pre-turn": {
      const prompt = (str(input.prompt) ?? str(input.message) ?? str(input.query) ?? str(input.user_message) ?? str(input.input) ?? (isJson(raw) ? "" : raw)).trim();
      if (!prompt) return null;
      const budget = typeof input.token_budget === "number" ? input.token_budget : typeof input.budget === "number" ? input.budget : undefined;
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
        return { method: "memory.capture", params: { session_id: sid, ...source, ...ws }, output: (r) => postTurnOutput((r as { stored?: boolean }).stored === true) };
      }
      if (event === "checkpoint") {
        return { method: "session.checkpoint", params: { session_id: sid, ...(source ?? {}), ...ws }, output: (r) => postTurnOutput((r as { stored?: boolean }).stored === true) };
      }
      return { method: "session.sleep", params: { session_id: sid, ...(source ?? {}), ...ws }, output: (r) => JSON.stringify({ ok: (r as { ok?: boolean }).ok === true }) };
    }
    default:
      return null;
  }
}

/** messages / transcript_path, or a {user_message, assistant_message} pair, as capture params. */
function messagesOf(input: Input, transcript_path: string | undefined): { messages: unknown[] } | { transcript_path: string } | null {
  if (Array.isArray(input.messages)) return { messages: input.messages };
  if (transcript_path) return { transcript_path };
  const user = str(input.user_message) ?? str(input.prompt) ?? str(input.user) ?? str(input.input);
  const assistant = str(input.assistant_message) ?? str(input.response) ?? str(input.assistant) ?? str(input.output) ?? str(input.last_assistant_message);
  if (!user || !assistant) return null;
  return { messages: [{ role: "user", content: user }, { role: "assistant", content: assistant }] };
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
