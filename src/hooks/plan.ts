import { claudeContextOutput, postTurnOutput, preTurnOutput } from "./format.js";
import type { Event } from "./events.js";
import type { HookFlags } from "./flags.js";
import { isJson, type Input } from "./input.js";

/** Which daemon call answers an event, with which params, and how its result is printed. */

/** The daemon's limit for a path param. */
const MAX_PATH_CHARS = 4096;
/** Recall looks at the start of a prompt; pasted walls of text add nothing but time. */
const MAX_QUERY_CHARS = 4000;

export interface Plan {
  method: string;
  params: Record<string, unknown>;
  notify?: { method: string; params: Record<string, unknown> }[];
  output: (result: unknown) => string;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** The daemon call for an event, or null when there is nothing to do. */
export function planFor(event: Event, input: Input, raw: string, flags: HookFlags): Plan | null {
  const rawCwd = str(input.cwd);
  const cwd = rawCwd && rawCwd.length <= MAX_PATH_CHARS && !rawCwd.includes("\0") ? rawCwd : undefined;
  // An explicit workspace wins; else the daemon picks the workspace containing the session's cwd.
  const ws = flags.workspace ? { workspace: flags.workspace } : cwd ? { cwd } : {};
  const session_id = str(input.session_id) ?? str(input.sessionId) ?? str(input.session);
  const transcript_path = str(input.transcript_path) ?? str(input.transcriptPath);
  const recallParams = (query: string, client = "hook") => ({
    query: query.slice(0, MAX_QUERY_CHARS),
    ...(flags.budget ? { budgetTokens: flags.budget } : {}),
    ...(flags.scope ? { scope: flags.scope } : {}),
    // For the audit log: who was given the memories, in which session.
    client,
    ...(session_id && session_id.length <= 512 ? { session_id } : {}),
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
        // Claude Code loads its CLAUDE.md files and auto-memory index itself: recall leaves them out.
        params: { ...recallParams(prompt, "claude-code"), host: "claude-code", ...(cwd ? { cwd } : {}) },
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
