// @ts-check
/**
 * cortexd plugin for the OpenClaw gateway (the plugin API of OpenClaw 2026.9; see README.md).
 *
 * - before_prompt_build: recall for the prompt → { prependContext } with a <cortex_memories> block;
 *   nothing when cortexd is down or slower than recallTimeoutMs. MEMORY.md/USER.md are left out
 *   by default (the gateway already puts them in the system prompt), and always in group chats.
 * - agent_end: capture the run's messages into today's daily log (cortexd keeps a per-session
 *   watermark, so each message is captured once).
 * - gateway method cortex.status: cortexd's status in the Cortex plugin's shape.
 * - tools cortex_search_memory / cortex_save_memory (declared in the manifest's contracts.tools);
 *   command /cortex (status line); service cortexd-client (opens the socket at gateway start).
 *
 * Memory never breaks a run: the hooks catch, log at debug, and return. Tools throw on failure, as
 * OpenClaw's tool contract asks; the gateway turns that into a tool error for the model.
 */
import { createClient, DaemonUnavailableError, SocketPathTooLongError } from "./client.js";
import { configSchema, normalizeConfig } from "./config.js";
import { scopeParams } from "./scope.js";
import { registerAudit } from "./audit.js";

export { normalizeConfig, configSchema } from "./config.js";
export { scopeFor, scopeParams } from "./scope.js";
export { defaultSocketPath } from "./client.js";

const VERSION = "0.1.0";
/** Cortex's capture payload cap. */
const MAX_CAPTURE_BYTES = 256 * 1024;
const MAX_CAPTURE_MESSAGES = 60;
const MAX_PART_CHARS = 20_000;
const MAX_QUERY_CHARS = 4000;
/** cortex.status and /cortex: a person waits, not a prompt; room for a busy daemon. */
const STATUS_TIMEOUT_MS = 5000;
/** Runs that are not a person asking something: nothing to recall for. */
const NO_RECALL_TRIGGERS = new Set(["heartbeat", "cron", "memory", "overflow"]);

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
    const msg =
      m && typeof m === "object" && "message" in m && m.message && typeof m.message === "object" ? m.message : m;
    if (!msg || typeof msg !== "object") continue;
    const { role, content, timestamp } = /** @type {{ role?: unknown, content?: unknown, timestamp?: unknown }} */ (
      msg
    );
    if (role !== "user" && role !== "assistant") continue;
    let slim;
    if (typeof content === "string") slim = content.slice(0, MAX_PART_CHARS);
    else if (Array.isArray(content)) {
      slim = content
        .map((p) => {
          if (typeof p === "string") return { type: "text", text: p.slice(0, MAX_PART_CHARS) };
          if (!p || typeof p !== "object") return null;
          if ((p.type === "text" || p.type === "input_text" || p.type === "output_text") && typeof p.text === "string")
            return { type: "text", text: p.text.slice(0, MAX_PART_CHARS) };
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

/** A tool failure the model can act on (thrown: OpenClaw reports it as the tool's error). */
function toolFailure(/** @type {unknown} */ e) {
  return new Error(
    e instanceof DaemonUnavailableError
      ? `cortexd is not available (${e.message}); start it with \`cortexd start\`.`
      : `cortexd refused the call: ${why(e)}`,
  );
}

const plugin = {
  id: "cortexd",
  name: "cortexd memory",
  description: "Recall from and capture to cortexd, the local memory daemon (MEMORY.md, daily logs, transcripts).",
  version: VERSION,
  configSchema,

  /** @param {any} api the OpenClaw plugin API */
  register(api) {
    const log = api.logger ?? { debug() {}, info() {}, warn() {}, error() {} };
    /** @type {ReturnType<typeof normalizeConfig>} */
    let cfg;
    try {
      cfg = normalizeConfig(api.pluginConfig);
    } catch (e) {
      // No default socket path fits (a very long HOME/XDG_RUNTIME_DIR): say so; calls fail with it.
      if (!(e instanceof SocketPathTooLongError)) throw e;
      log.warn?.(`cortexd: ${e.message}`);
      cfg = normalizeConfig({ ...(api.pluginConfig ?? {}), socketPath: e.socketPath });
    }
    const client = createClient({ socketPath: cfg.socketPath, connectTimeoutMs: Math.max(cfg.recallTimeoutMs, 1000) });
    const ws = cfg.workspace ? { workspace: cfg.workspace } : {};
    const audit = registerAudit(api, client, cfg);

    api.on("before_prompt_build", async (/** @type {any} */ event, /** @type {any} */ ctx) => {
      if (!cfg.autoRecall || NO_RECALL_TRIGGERS.has(ctx?.trigger)) return undefined;
      const prompt = typeof event?.prompt === "string" ? event.prompt.trim() : "";
      if (!prompt || prompt.startsWith("/")) return undefined;
      const session = String(ctx?.sessionKey ?? ctx?.sessionId ?? "");
      try {
        if (session)
          client
            .notify("session.touch", { session_id: session, prompt: prompt.slice(0, MAX_QUERY_CHARS), ...ws })
            .catch(() => {});
        const r = await client.call(
          "memory.recall",
          {
            query: prompt.slice(0, MAX_QUERY_CHARS),
            budgetTokens: cfg.recallBudgetTokens,
            ...scopeParams(cfg.scope, ctx),
            ...audit.params(session || undefined),
            ...(cfg.recallCurated ? {} : { excludeCurated: true }),
            ...ws,
          },
          { timeoutMs: cfg.recallTimeoutMs },
        );
        return r?.context ? { prependContext: r.context } : undefined;
      } catch (e) {
        log.debug?.(`cortexd recall skipped: ${why(e)}`);
        return undefined;
      }
    });

    api.on("agent_end", async (/** @type {any} */ event, /** @type {any} */ ctx) => {
      if (!cfg.autoCapture || event?.success === false) return;
      const messages = captureWindow(event?.messages);
      if (messages.length === 0) return;
      const session_id = String(ctx?.sessionKey ?? ctx?.sessionId ?? "openclaw");
      try {
        const r = await client.call(
          "memory.capture",
          { session_id, messages, ...ws },
          { timeoutMs: cfg.captureTimeoutMs },
        );
        if (r?.stored) log.debug?.(`cortexd captured ${r.entries} entr${r.entries === 1 ? "y" : "ies"} to ${r.path}`);
      } catch (e) {
        log.debug?.(`cortexd capture skipped: ${why(e)}`);
      }
    });

    api.registerGatewayMethod(
      "cortex.status",
      async (/** @type {{ respond: (ok: boolean, payload?: unknown, error?: unknown) => void }} */ { respond }) => {
        try {
          const s = await client.call("cortex.status", {}, { timeoutMs: STATUS_TIMEOUT_MS });
          respond(true, { ...s, config: { ...s.config, autoRecall: cfg.autoRecall, autoCapture: cfg.autoCapture } });
        } catch (e) {
          respond(true, {
            version: null,
            healthy: false,
            knowledgeState: { hasMemories: false, totalSessions: 0, maturity: "cold", tier: 0 },
            recallMetrics: { count: 0, p50: 0, p95: 0, p99: 0 },
            retryQueuePending: 0,
            config: {
              autoRecall: cfg.autoRecall,
              autoCapture: cfg.autoCapture,
              fileSync: false,
              transcriptSync: false,
              namespace: null,
              socketPath: cfg.socketPath,
            },
            error: why(e),
          });
        }
      },
    );

    // Tools are made per conversation (OpenClaw passes the tool context): a call in a group searches as the group.
    api.registerTool(
      (/** @type {any} */ ctx) => ({
        name: "cortex_search_memory",
        label: "Search memory (cortexd)",
        description:
          "Search long-term memory (MEMORY.md, daily logs, past session transcripts) with hybrid keyword + semantic search. Returns ranked snippets with path#Lx-Ly citations.",
        parameters: {
          type: "object",
          additionalProperties: false,
          properties: {
            query: { type: "string", description: "what to look for" },
            limit: { type: "integer", minimum: 1, maximum: 50, description: "number of results (default 6)" },
            minScore: { type: "number", minimum: 0, maximum: 1, description: "drop results scoring below this" },
          },
          required: ["query"],
        },
        /** @param {string} _id @param {{ query: string, limit?: number, minScore?: number }} params */
        async execute(_id, params) {
          let r;
          try {
            r = await client.call(
              "memory.search",
              {
                query: String(params?.query ?? ""),
                ...(params?.limit ? { limit: params.limit } : {}),
                ...(params?.minScore !== undefined ? { minScore: params.minScore } : {}),
                ...scopeParams(cfg.scope, ctx),
                ...audit.params(typeof ctx?.sessionKey === "string" ? ctx.sessionKey : undefined),
                ...ws,
              },
              { timeoutMs: 10_000 },
            );
          } catch (e) {
            throw toolFailure(e);
          }
          const results = r.results.map((/** @type {any} */ h) => ({
            path: h.path,
            startLine: h.startLine,
            endLine: h.endLine,
            score: Number(h.score.toFixed(3)),
            citation: `${h.path}#L${h.startLine}-L${h.endLine}`,
            snippet: h.snippet,
          }));
          const details = { results, mode: r.mode };
          return {
            content: [
              {
                type: "text",
                text: results.length ? JSON.stringify(details, null, 2) : `No memories found for "${params?.query}".`,
              },
            ],
            details,
          };
        },
      }),
      { names: ["cortex_search_memory"] },
    );

    api.registerTool(
      (/** @type {any} */ ctx) => ({
        name: "cortex_save_memory",
        label: "Save memory (cortexd)",
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
          const { scope } = scopeParams(cfg.scope, ctx);
          if (scope === "group" && params?.target === "memory")
            throw new Error(
              'a group conversation cannot save to MEMORY.md (private memory, never loaded into a group): save with target "daily"',
            );
          let r;
          try {
            r = await client.call(
              "memory.save",
              {
                text: String(params?.text ?? ""),
                ...(params?.target ? { target: params.target } : {}),
                ...(params?.importance ? { importance: params.importance } : {}),
                ...(params?.tags?.length ? { tags: params.tags } : {}),
                ...(typeof ctx?.sessionKey === "string" && ctx.sessionKey ? { session_id: ctx.sessionKey } : {}),
                scope,
                ...ws,
              },
              { timeoutMs: 10_000 },
            );
          } catch (e) {
            throw toolFailure(e);
          }
          const text = r.stored
            ? `Saved to ${r.path}${r.startLine ? `#L${r.startLine}` : ""}.${r.redactions ? ` ${r.redactions} secret(s) redacted.` : ""}`
            : `Not saved: a recent memory says the same (${r.duplicateOf ?? r.path}).`;
          return { content: [{ type: "text", text }], details: r };
        },
      }),
      { names: ["cortex_save_memory"] },
    );

    api.registerCommand?.({
      name: "cortex",
      description: "cortexd memory status",
      handler: async () => {
        try {
          const s = await client.call("cortex.status", {}, { timeoutMs: STATUS_TIMEOUT_MS });
          const w = s.workspaces?.[0];
          return {
            text: `cortexd ${s.version}: ${s.healthy ? "healthy" : "degraded"}; ${w ? `${w.files} files, ${w.chunks} chunks` : "no workspace"}; recall p50 ${s.recallMetrics.p50} ms`,
          };
        } catch (e) {
          return { text: `cortexd is not available: ${why(e)}` };
        }
      },
    });

    api.registerService?.({
      id: "cortexd-client",
      async start() {
        // Connect now: the first recall then costs one round trip, not a connect as well.
        await client.warm().then(
          () => log.debug?.(`cortexd connected at ${cfg.socketPath}`),
          (/** @type {unknown} */ e) =>
            log.info?.(`cortexd not reachable yet (${why(e)}); recall and capture resume when it is`),
        );
      },
      stop() {
        client.close();
      },
    });
  },
};

export default plugin;
