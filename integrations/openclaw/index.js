// @ts-check
/**
 * cortexd plugin for the OpenClaw gateway.
 *
 * - before_prompt_build (fallback before_agent_start): recall for the prompt → { prependContext }
 *   with a <cortex_memories> block; nothing when cortexd is down or slow (recallTimeoutMs).
 * - agent_end: capture the run's messages into today's daily log (cortexd keeps a per-session
 *   watermark, so each message is captured once).
 * - gateway method cortex.status: cortexd's status in the Cortex plugin's shape.
 * - tools cortex_search_memory / cortex_save_memory; command /cortex (status line).
 *
 * Memory is never allowed to break a run: every handler catches, logs at debug/warn, and returns.
 */
import { CortexdError, createClient, defaultSocketPath } from "./client.js";

const VERSION = "0.1.0";
/** Cortex's capture payload cap. */
const MAX_CAPTURE_BYTES = 256 * 1024;
const MAX_CAPTURE_MESSAGES = 60;
const MAX_PART_CHARS = 20_000;
const MAX_QUERY_CHARS = 4000;

/** @type {Record<string, unknown>} */
const configSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    socketPath: { type: "string" },
    workspace: { type: "string" },
    autoRecall: { type: "boolean", default: true },
    autoCapture: { type: "boolean", default: true },
    recallBudgetTokens: { type: "integer", minimum: 100, maximum: 20000, default: 2000 },
    recallTimeoutMs: { type: "integer", minimum: 20, maximum: 10000, default: 250 },
    captureTimeoutMs: { type: "integer", minimum: 100, maximum: 60000, default: 5000 },
    scope: { type: "string", enum: ["auto", "private", "group"], default: "auto" },
    recallHook: { type: "string", enum: ["auto", "before_prompt_build", "before_agent_start"], default: "auto" },
  },
};

/**
 * @typedef {object} CortexdPluginConfig
 * @property {string} [socketPath]
 * @property {string} [workspace]
 * @property {boolean} [autoRecall]
 * @property {boolean} [autoCapture]
 * @property {number} [recallBudgetTokens]
 * @property {number} [recallTimeoutMs]
 * @property {number} [captureTimeoutMs]
 * @property {"auto" | "private" | "group"} [scope]
 * @property {"auto" | "before_prompt_build" | "before_agent_start"} [recallHook]
 */

/** @param {unknown} raw @returns {Required<Omit<CortexdPluginConfig, "workspace">> & { workspace?: string }} */
export function normalizeConfig(raw) {
  const c = /** @type {CortexdPluginConfig} */ (raw && typeof raw === "object" ? raw : {});
  const int = (/** @type {unknown} */ v, /** @type {number} */ d, /** @type {number} */ lo, /** @type {number} */ hi) =>
    typeof v === "number" && Number.isFinite(v) ? Math.min(hi, Math.max(lo, Math.floor(v))) : d;
  return {
    socketPath: typeof c.socketPath === "string" && c.socketPath ? c.socketPath : defaultSocketPath(),
    ...(typeof c.workspace === "string" && c.workspace ? { workspace: c.workspace } : {}),
    autoRecall: c.autoRecall !== false,
    autoCapture: c.autoCapture !== false,
    recallBudgetTokens: int(c.recallBudgetTokens, 2000, 100, 20000),
    recallTimeoutMs: int(c.recallTimeoutMs, 250, 20, 10000),
    captureTimeoutMs: int(c.captureTimeoutMs, 5000, 100, 60000),
    scope: c.scope === "private" || c.scope === "group" ? c.scope : "auto",
    recallHook: c.recallHook === "before_prompt_build" || c.recallHook === "before_agent_start" ? c.recallHook : "auto",
  };
}

/** Group chats never see the private, curated MEMORY.md/USER.md. */
function scopeFor(/** @type {string} */ configured, /** @type {any} */ ctx) {
  if (configured === "private" || configured === "group") return configured;
  const key = String(ctx?.sessionKey ?? "");
  return /:(group|channel|room|guild|thread)s?:/i.test(key) || ctx?.chatType === "group" || ctx?.isGroup === true ? "group" : "private";
}

/** @param {unknown} e */
function why(e) {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Keeps what capture needs from agent_end's messages, newest last, under MAX_CAPTURE_BYTES:
 * text parts (capped), image markers without their data; tool calls/results are dropped (cortexd
 * drops them too).
 * @param {unknown} messages
 * @returns {unknown[]}
 */
export function captureWindow(messages) {
  if (!Array.isArray(messages)) return [];
  /** @type {unknown[]} */
  const out = [];
  for (const m of messages.slice(-MAX_CAPTURE_MESSAGES)) {
    const msg = m && typeof m === "object" && "message" in m && m.message && typeof m.message === "object" ? m.message : m;
    if (!msg || typeof msg !== "object") continue;
    const { role, content, timestamp } = /** @type {{ role?: unknown, content?: unknown, timestamp?: unknown }} */ (msg);
    if (role !== "user" && role !== "assistant") continue;
    let slim;
    if (typeof content === "string") slim = content.slice(0, MAX_PART_CHARS);
    else if (Array.isArray(content)) {
      slim = content
        .map((p) => {
          if (typeof p === "string") return { type: "text", text: p.slice(0, MAX_PART_CHARS) };
          if (!p || typeof p !== "object") return null;
          if ((p.type === "text" || p.type === "input_text" || p.type === "output_text") && typeof p.text === "string") return { type: "text", text: p.text.slice(0, MAX_PART_CHARS) };
          if (p.type === "image" || p.type === "image_url" || p.type === "input_image") return { type: "image" };
          return null;
        })
        .filter(Boolean);
      if (slim.length === 0) continue;
    } else continue;
    out.push({ role, content: slim, ...(timestamp !== undefined ? { timestamp } : {}) });
  }
  while (out.length > 1 && Buffer.byteLength(JSON.stringify(out)) > MAX_CAPTURE_BYTES) out.shift();
  return out;
}

const plugin = {
  id: "cortexd",
  name: "cortexd memory",
  description: "Recall from and capture to cortexd, the local memory daemon (MEMORY.md, daily logs, transcripts).",
  version: VERSION,
  configSchema,

  /** @param {any} api the OpenClaw plugin API */
  register(api) {
    const cfg = normalizeConfig(api.pluginConfig);
    const client = createClient({ socketPath: cfg.socketPath, connectTimeoutMs: Math.max(cfg.recallTimeoutMs, 200) });
    const log = api.logger ?? { debug() {}, info() {}, warn() {}, error() {} };
    const ws = cfg.workspace ? { workspace: cfg.workspace } : {};
    /** Recall once per (session, prompt), whichever prompt hook fires first. */
    const recalled = new Map();
    let modernHookSeen = false;

    /**
     * @param {any} event
     * @param {any} ctx
     * @returns {Promise<{ prependContext: string } | undefined>}
     */
    async function recallFor(event, ctx) {
      if (!cfg.autoRecall) return undefined;
      const prompt = typeof event?.prompt === "string" ? event.prompt.trim() : "";
      if (!prompt || prompt.startsWith("/")) return undefined;
      const session = String(ctx?.sessionKey ?? ctx?.sessionId ?? "");
      const key = `${session}\0${prompt}`;
      const now = Date.now();
      for (const [k, at] of recalled) if (now - at > 5000) recalled.delete(k);
      if (recalled.has(key)) return undefined;
      recalled.set(key, now);
      try {
        if (session) client.notify("session.touch", { session_id: session, prompt: prompt.slice(0, MAX_QUERY_CHARS), ...ws }).catch(() => {});
        const r = await client.call(
          "memory.recall",
          { query: prompt.slice(0, MAX_QUERY_CHARS), budgetTokens: cfg.recallBudgetTokens, scope: scopeFor(cfg.scope, ctx), ...ws },
          { timeoutMs: cfg.recallTimeoutMs },
        );
        return r?.context ? { prependContext: r.context } : undefined;
      } catch (e) {
        log.debug?.(`cortexd recall skipped: ${why(e)}`);
        return undefined;
      }
    }

    if (cfg.recallHook !== "before_agent_start") {
      api.on("before_prompt_build", (/** @type {any} */ event, /** @type {any} */ ctx) => {
        modernHookSeen = true;
        return recallFor(event, ctx);
      });
    }
    if (cfg.recallHook !== "before_prompt_build") {
      // Older gateways only have before_agent_start. On newer ones both fire: the (session, prompt)
      // memo above makes sure memories are injected once.
      api.on("before_agent_start", (/** @type {any} */ event, /** @type {any} */ ctx) => {
        if (cfg.recallHook === "auto" && modernHookSeen) return undefined;
        return recallFor(event, ctx);
      });
    }

    api.on("agent_end", async (/** @type {any} */ event, /** @type {any} */ ctx) => {
      if (!cfg.autoCapture || event?.success === false) return;
      const messages = captureWindow(event?.messages);
      if (messages.length === 0) return;
      const session_id = String(ctx?.sessionKey ?? ctx?.sessionId ?? event?.sessionKey ?? "openclaw");
      try {
        const r = await client.call("memory.capture", { session_id, messages, ...ws }, { timeoutMs: cfg.captureTimeoutMs });
        if (r?.stored) log.debug?.(`cortexd captured ${r.entries} entr${r.entries === 1 ? "y" : "ies"} to ${r.path}`);
      } catch (e) {
        log.debug?.(`cortexd capture skipped: ${why(e)}`);
      }
    });

    api.registerGatewayMethod("cortex.status", async (/** @type {{ params?: unknown, respond: (ok: boolean, payload?: unknown, error?: unknown) => void }} */ { respond }) => {
      try {
        const s = await client.call("cortex.status", {}, { timeoutMs: 2000 });
        respond(true, { ...s, config: { ...s.config, autoRecall: cfg.autoRecall, autoCapture: cfg.autoCapture } });
      } catch (e) {
        respond(true, {
          version: null,
          healthy: false,
          knowledgeState: { hasMemories: false, totalSessions: 0, maturity: "cold", tier: 0 },
          recallMetrics: { count: 0, p50: 0, p95: 0, p99: 0 },
          retryQueuePending: 0,
          config: { autoRecall: cfg.autoRecall, autoCapture: cfg.autoCapture, fileSync: false, transcriptSync: false, namespace: null, socketPath: cfg.socketPath },
          error: why(e),
        });
      }
    });

    /** @param {string} text @param {boolean} [isError] */
    const text = (text, isError) => ({ content: [{ type: "text", text }], ...(isError ? { isError: true } : {}) });
    /** @param {unknown} e */
    const toolError = (e) =>
      text(
        e instanceof CortexdError && e.kind !== "rpc"
          ? `cortexd is not available (${e.message}); start it with \`cortexd start\`.`
          : `cortexd refused the call: ${why(e)}`,
        true,
      );

    api.registerTool({
      name: "cortex_search_memory",
      description:
        "Search long-term memory (MEMORY.md, daily logs, past session transcripts) with hybrid keyword + semantic search. Returns ranked snippets with path#Lx-Ly citations.",
      parameters: {
        type: "object",
        additionalProperties: false,
        properties: {
          query: { type: "string", description: "what to look for" },
          maxResults: { type: "integer", minimum: 1, maximum: 50, description: "default 6" },
          minScore: { type: "number", minimum: 0, maximum: 1 },
        },
        required: ["query"],
      },
      /** @param {string} _id @param {{ query: string, maxResults?: number, minScore?: number }} params */
      async execute(_id, params) {
        try {
          const r = await client.call(
            "memory.search",
            { query: String(params?.query ?? ""), ...(params?.maxResults ? { limit: params.maxResults } : {}), ...(params?.minScore !== undefined ? { minScore: params.minScore } : {}), ...ws },
            { timeoutMs: 10_000 },
          );
          const results = r.results.map((/** @type {any} */ h) => ({
            path: h.path,
            startLine: h.startLine,
            endLine: h.endLine,
            score: Number(h.score.toFixed(3)),
            citation: `${h.path}#L${h.startLine}-L${h.endLine}`,
            snippet: h.snippet,
          }));
          return text(results.length ? JSON.stringify({ results, mode: r.mode }, null, 2) : `No memories found for "${params?.query}".`);
        } catch (e) {
          return toolError(e);
        }
      },
    });

    api.registerTool({
      name: "cortex_save_memory",
      description:
        "Save a durable fact, decision or preference: appended to today's daily log (target daily) or to MEMORY.md (target memory). Secrets are redacted; near-duplicates of recent saves are skipped.",
      parameters: {
        type: "object",
        additionalProperties: false,
        properties: {
          text: { type: "string", description: "the memory, one self-contained statement" },
          target: { type: "string", enum: ["daily", "memory"] },
          importance: { type: "integer", minimum: 1, maximum: 10 },
          tags: { type: "array", items: { type: "string" } },
        },
        required: ["text"],
      },
      /** @param {string} _id @param {{ text: string, target?: "daily" | "memory", importance?: number, tags?: string[] }} params */
      async execute(_id, params) {
        try {
          const r = await client.call(
            "memory.save",
            {
              text: String(params?.text ?? ""),
              ...(params?.target ? { target: params.target } : {}),
              ...(params?.importance ? { importance: params.importance } : {}),
              ...(params?.tags?.length ? { tags: params.tags } : {}),
              ...ws,
            },
            { timeoutMs: 10_000 },
          );
          if (!r.stored) return text(`Not saved: a recent memory says the same (${r.duplicateOf ?? r.path}).`);
          return text(`Saved to ${r.path}${r.startLine ? `#L${r.startLine}` : ""}.${r.redactions ? ` ${r.redactions} secret(s) redacted.` : ""}`);
        } catch (e) {
          return toolError(e);
        }
      },
    });

    api.registerCommand?.({
      name: "cortex",
      description: "cortexd memory status",
      handler: async () => {
        try {
          const s = await client.call("cortex.status", {}, { timeoutMs: 2000 });
          const w = s.workspaces?.[0];
          return { text: `cortexd ${s.version}: ${s.healthy ? "healthy" : "degraded"}; ${w ? `${w.files} files, ${w.chunks} chunks` : "no workspace"}; recall p50 ${s.recallMetrics.p50} ms` };
        } catch (e) {
          return { text: `cortexd is not available: ${why(e)}` };
        }
      },
    });

    api.registerService?.({
      id: "cortexd-client",
      start() {},
      stop() {
        client.close();
      },
    });
  },
};

export default plugin;
