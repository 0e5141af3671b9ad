// @ts-check
/**
 * Sessions in OpenClaw as cortexd has them for Claude Code: the first turn this gateway sees of a
 * session starts it in cortexd (session.start), whose answer holds a <cortex_recovery> note when
 * the previous session of the same lineage ended uncleanly (gateway killed, /new without /sleep);
 * /sleep or OpenClaw's own session end marks a clean end. The lineage keeps recovery inside its
 * host and scope: `openclaw:<agent>:private` for private conversations, and for a group chat
 * `openclaw:<agent>:group:<conversation>` (a group only ever recovers its own conversation);
 * Claude Code's sessions have none, so they never see an OpenClaw chat.
 *
 * It also keeps the last few turns of each session (in memory) for /checkpoint's summary.
 */

/** Turns kept per session for /checkpoint. */
const RECENT_TURNS = 3;
const SUMMARY_PART_CHARS = 160;
/** Sessions tracked at once (the oldest forgotten: their next turn starts them again, harmlessly). */
const MAX_TRACKED = 500;

/** The id cortexd knows a session by: OpenClaw's session id (a new one after /new), else its key. */
export function sessionIdOf(/** @type {any} */ ctx) {
  const id = ctx?.sessionId ?? ctx?.sessionKey;
  return typeof id === "string" && id ? id.slice(0, 512) : "";
}

/**
 * @param {any} ctx OpenClaw's hook or command context
 * @param {"private" | "group"} scope
 */
export function lineageOf(ctx, scope) {
  const agent = String(ctx?.agentId ?? agentOfKey(ctx?.sessionKey) ?? "main").slice(0, 64);
  if (scope === "private") return `openclaw:${agent}:private`;
  const key = typeof ctx?.sessionKey === "string" ? ctx.sessionKey.split(/:thread:/i)[0] : "";
  const conv = key || String(ctx?.chatId ?? ctx?.channelId ?? "unknown");
  return `openclaw:${agent}:group:${conv}`.slice(0, 256);
}

function agentOfKey(/** @type {unknown} */ key) {
  return typeof key === "string" ? /^agent:([^:]+):/.exec(key)?.[1] : undefined;
}

/** @param {string} s @param {number} max */
function cut(s, max) {
  const one = s
    .replace(/<cortex_[a-z]+>[\s\S]*?<\/cortex_[a-z]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}

/** The last assistant text of agent_end's messages. @param {unknown} messages */
export function lastAssistantText(messages) {
  if (!Array.isArray(messages)) return "";
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    const msg = m && typeof m === "object" && "message" in m ? m.message : m;
    if (!msg || msg.role !== "assistant") continue;
    const c = msg.content;
    const text =
      typeof c === "string"
        ? c
        : Array.isArray(c)
          ? c.map((p) => (p && typeof p.text === "string" && p.type !== "thinking" ? p.text : "")).join(" ")
          : "";
    if (text.trim()) return text;
  }
  return "";
}

/**
 * @param {{ call: (method: string, params: Record<string, unknown>, timeoutMs: number) => Promise<any>, ws: Record<string, string>, log: any }} deps
 */
export function createSessions(deps) {
  /** Sessions started in cortexd by this process. */
  const started = new Set();
  /** @type {Map<string, { user: string, assistant: string }[]>} */
  const recent = new Map();

  function track(/** @type {string} */ sid) {
    started.add(sid);
    if (started.size > MAX_TRACKED) started.delete(started.values().next().value);
  }

  return {
    /**
     * The session's first turn here: starts it in cortexd; returns the recovery note ("" if none).
     * @param {any} ctx @param {"private" | "group"} scope @param {number} timeoutMs
     */
    async begin(ctx, scope, timeoutMs) {
      const sid = sessionIdOf(ctx);
      if (!sid || started.has(sid)) return "";
      track(sid);
      try {
        const r = await deps.call(
          "session.start",
          { session_id: sid, lineage: lineageOf(ctx, scope), maxChars: 0, ...deps.ws },
          timeoutMs,
        );
        return typeof r?.recovery === "string" ? r.recovery : "";
      } catch (e) {
        started.delete(sid); // not started: the next turn tries again
        throw e;
      }
    },
    /** A prompt of the session (for /checkpoint's summary). @param {string} sid @param {string} prompt */
    notePrompt(sid, prompt) {
      if (!sid || !prompt) return;
      const turns = recent.get(sid) ?? [];
      turns.push({ user: cut(prompt, SUMMARY_PART_CHARS), assistant: "" });
      recent.delete(sid);
      recent.set(sid, turns.slice(-RECENT_TURNS));
      if (recent.size > MAX_TRACKED) recent.delete(recent.keys().next().value);
    },
    /** The run's answer. @param {string} sid @param {string} text */
    noteReply(sid, text) {
      const last = recent.get(sid)?.at(-1);
      if (last && text) last.assistant = cut(text, SUMMARY_PART_CHARS);
    },
    /**
     * A deterministic summary of the session's recent turns, or "" when this gateway saw none
     * (cortexd then writes the session's goal and last focus).
     * @param {string} sid
     */
    summary(sid) {
      const turns = recent.get(sid) ?? [];
      if (turns.length === 0) return "";
      const asked = turns.map((t) => t.user).filter(Boolean);
      const last = turns.at(-1)?.assistant;
      return [
        asked.length ? `Recent requests: ${asked.map((a) => `"${a}"`).join("; ")}` : "",
        last ? `last answer: ${last}` : "",
      ]
        .filter(Boolean)
        .join(". ");
    },
    /** The session ended (clean or not): its next turn starts a new one. @param {string} sid */
    end(sid) {
      started.delete(sid);
      recent.delete(sid);
    },
  };
}
