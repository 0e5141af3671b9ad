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
import { homedir } from "node:os";
import { join } from "node:path";
import { createCaptureQueue } from "./capture-queue.js";
import { captureWindow } from "./capture-window.js";
import { CLI_DESCRIPTORS, cortexCliRegistrar } from "./cli.js";
import { createClient, isUnavailable, SocketPathTooLongError } from "./client.js";
import { chatCommands } from "./commands.js";
import { configSchema, ignoredCortexKeys, ignoredKeysWarning, normalizeConfig } from "./config.js";
import { createGate } from "./gate.js";
import { createRecallMetrics } from "./metrics.js";
import { scopeFor, scopeParams } from "./scope.js";
import { registerAudit } from "./audit.js";
import { createSessions, lastAssistantText, lineageOf, sessionIdOf } from "./sessions.js";

export { normalizeConfig, configSchema } from "./config.js";
export { scopeFor, scopeParams } from "./scope.js";
export { defaultSocketPath, DaemonUnavailableError } from "./client.js";
export { captureWindow } from "./capture-window.js";
export { createGate } from "./gate.js";
export { createCaptureQueue } from "./capture-queue.js";
export { CLI_DESCRIPTORS } from "./cli.js";

const VERSION = "0.1.0";
const MAX_QUERY_CHARS = 4000;
/** cortex.status and /cortex: a person waits, not a prompt; room for a busy daemon. */
const STATUS_TIMEOUT_MS = 5000;
/** A queued capture's delivery attempt (captureTimeoutMs when longer). */
const QUEUED_CAPTURE_TIMEOUT_MS = 30_000;
/** Runs that are not a person asking something: nothing to recall for. */
const NO_RECALL_TRIGGERS = new Set(["heartbeat", "cron", "memory", "overflow"]);
/** OpenClaw's session ends that are clean (no recovery note next time); "new"/"reset" without /sleep are not. */
const CLEAN_END_REASONS = new Set(["idle", "daily", "deleted", "shutdown", "restart"]);
/** Warnings said once per process (the gateway may load and register the plugin more than once). */
const warned = /** @type {Set<string>} */ (
  /** @type {any} */ (globalThis)[Symbol.for("cortexd.openclaw.warned")] ??= new Set()
);

/**
 * State shared by every registration of the plugin in this process, by key.
 * @template T @param {string} key @param {() => T} make @returns {T}
 */
function perProcess(key, make) {
  const all = /** @type {Map<string, any>} */ (
    /** @type {any} */ (globalThis)[Symbol.for("cortexd.openclaw.state")] ??= new Map()
  );
  if (!all.has(key)) all.set(key, make());
  return all.get(key);
}

/** @param {unknown} e */
function why(e) {
  return e instanceof Error ? e.message : String(e);
}

/** A tool failure the model can act on (thrown: OpenClaw reports it as the tool's error). */
function toolFailure(/** @type {unknown} */ e) {
  return new Error(
    isUnavailable(e)
      ? `cortexd is not available (${e.message}); start it with \`cortexd start\`.`
      : `cortexd refused the call: ${why(e)}`,
  );
}

/** "1,173" @param {number} n */
const num = (n) => n.toLocaleString("en-US");

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
    const call = (
      /** @type {string} */ method,
      /** @type {Record<string, unknown>} */ params,
      /** @type {number} */ timeoutMs,
    ) => client.call(/** @type {any} */ (method), /** @type {any} */ (params), { timeoutMs });
    const ignored = ignoredCortexKeys(api.pluginConfig);
    const warning = ignoredKeysWarning(api.pluginConfig);
    if (warning && !warned.has(warning)) {
      warned.add(warning);
      log.warn?.(warning);
    }
    // One set of session, gate, metrics and queue state per process and daemon: the gateway may
    // register the plugin more than once (its hooks and its commands from different registries).
    const shared = perProcess(`${cfg.socketPath}\0${cfg.workspace ?? ""}`, () => ({
      gate: createGate(),
      metrics: createRecallMetrics(),
      sessions: createSessions({ call, ws, log }),
      /** @type {ReturnType<typeof createCaptureQueue> | null} */
      queue: null,
      /** /audit on|off: heard by the hooks' registration, set from the commands'. */
      audit: { on: cfg.auditLog },
    }));
    const { gate, metrics, sessions } = shared;
    const audit = registerAudit(api, client, shared.audit);
    /** Recall sources, from the Cortex switches (both off: no recall). */
    const sources = [...(cfg.fileSync ? ["files"] : []), ...(cfg.transcriptSync ? ["transcripts"] : [])];

    // The capture queue lives in the gateway only (created by the service, or by the first capture).
    const captureQueue = (/** @type {string | undefined} */ stateDir) => {
      if (!shared.queue) {
        const dir =
          stateDir ??
          (() => {
            try {
              return api.runtime?.state?.resolveStateDir?.();
            } catch {
              return undefined;
            }
          })() ??
          process.env.OPENCLAW_STATE_DIR ??
          join(homedir(), ".openclaw");
        shared.queue = createCaptureQueue({
          file: join(dir, "plugin-state", "cortexd", "capture-queue.json"),
          // In the background nobody waits: a busy daemon (a start-up sync) gets time to answer.
          send: (method, params) => call(method, params, Math.max(cfg.captureTimeoutMs, QUEUED_CAPTURE_TIMEOUT_MS)),
          log,
        });
      }
      return shared.queue;
    };

    api.on("before_prompt_build", async (/** @type {any} */ event, /** @type {any} */ ctx) => {
      if (NO_RECALL_TRIGGERS.has(ctx?.trigger)) return undefined;
      const prompt = typeof event?.prompt === "string" ? event.prompt.trim() : "";
      if (!prompt || prompt.startsWith("/")) return undefined;
      // Cold-start gate: cortexd was unreachable 3 times in a row; no connect attempt for 30 s.
      if (!gate.allow()) return undefined;
      const sid = sessionIdOf(ctx);
      const scope = scopeFor(cfg.scope, ctx);
      const query = prompt.slice(0, MAX_QUERY_CHARS);
      sessions.notePrompt(sid, query);
      const t0 = performance.now();
      const [start, recall] = await Promise.allSettled([
        sessions.begin(ctx, scope, cfg.recallTimeoutMs),
        cfg.autoRecall && sources.length > 0
          ? call(
              "memory.recall",
              {
                query,
                budgetTokens: cfg.recallBudgetTokens,
                ...scopeParams(cfg.scope, ctx),
                ...audit.params(sid || undefined),
                ...(cfg.recallCurated ? {} : { excludeCurated: true }),
                ...(cfg.recallLimit ? { limit: cfg.recallLimit } : {}),
                ...(cfg.recallReferenceDate ? { referenceDate: cfg.recallReferenceDate } : {}),
                ...(sources.length < 2 ? { sources } : {}),
                ...ws,
              },
              cfg.recallTimeoutMs,
            ).then((r) => {
              metrics.add(performance.now() - t0);
              return r;
            })
          : Promise.resolve(null),
      ]);
      const failed = [start, recall].find((r) => r.status === "rejected");
      if (failed) {
        gate.failure(/** @type {PromiseRejectedResult} */ (failed).reason);
        log.debug?.(`cortexd recall skipped: ${why(/** @type {PromiseRejectedResult} */ (failed).reason)}`);
      } else {
        gate.success();
        shared.queue?.nudge();
      }
      if (sid && !failed)
        client
          .notify("session.touch", { session_id: sid, prompt: query, lineage: lineageOf(ctx, scope), ...ws })
          .catch(() => {});
      const recovery = start.status === "fulfilled" ? start.value : "";
      const context = recall.status === "fulfilled" ? (recall.value?.context ?? "") : "";
      const prepend = [recovery, context].filter(Boolean).join("\n\n");
      return prepend ? { prependContext: prepend } : undefined;
    });

    // Never awaits cortexd: the capture goes to the persisted queue and the run ends at once.
    api.on("agent_end", (/** @type {any} */ event, /** @type {any} */ ctx) => {
      if (!cfg.autoCapture || event?.success === false) return;
      const sid = sessionIdOf(ctx) || "openclaw";
      sessions.noteReply(sid, lastAssistantText(event?.messages));
      const messages = captureWindow(event?.messages, {
        maxBytes: cfg.captureMaxPayloadBytes,
        filter: cfg.captureFilter,
      });
      if (messages.length === 0) return;
      captureQueue().enqueue("memory.capture", { session_id: sid, messages, ...ws });
    });

    // OpenClaw's own session end: a clean end when the session is really over (not on /new or reset
    // without /sleep, which the next session's recovery note is for; a compaction continues it).
    api.on("session_end", (/** @type {any} */ event) => {
      const sid = typeof event?.sessionId === "string" ? event.sessionId : "";
      if (!sid) return;
      sessions.end(sid);
      if (!CLEAN_END_REASONS.has(event?.reason)) return;
      client
        .call(
          "session.sleep",
          { session_id: sid, checkpoint: false, reason: String(event.reason), ...ws },
          { timeoutMs: cfg.toolTimeoutMs },
        )
        .catch((/** @type {unknown} */ e) => log.debug?.(`cortexd session end not recorded: ${why(e)}`));
    });

    /** cortexd's status in the Cortex plugin's shape, with this plugin's own figures. */
    const pluginStatus = async () => {
      const own = {
        recallMetrics: metrics.summary(),
        retryQueuePending: shared.queue?.pending() ?? 0,
        captureQueue: shared.queue?.stats() ?? { pending: 0, delivered: 0, dropped: 0, failures: 0, lastError: null },
        coldStartGate: gate.state(),
      };
      const config = {
        autoRecall: cfg.autoRecall,
        autoCapture: cfg.autoCapture,
        fileSync: cfg.fileSync,
        transcriptSync: cfg.transcriptSync,
        captureFilter: cfg.captureFilter,
        auditLog: cfg.auditLog,
        ...(ignored.length ? { ignoredCortexKeys: ignored } : {}),
      };
      try {
        const s = await call("cortex.status", {}, STATUS_TIMEOUT_MS);
        gate.success();
        shared.queue?.nudge();
        const w = cfg.workspace
          ? s.workspaces?.find((/** @type {any} */ x) => x.name === cfg.workspace || x.root === cfg.workspace)
          : s.workspaces?.[0];
        return {
          ...s,
          daemonRecallMetrics: s.recallMetrics,
          ...own,
          config: { ...s.config, ...config, namespace: w?.name ?? s.config?.namespace ?? null },
        };
      } catch (e) {
        return {
          version: null,
          healthy: false,
          knowledgeState: { hasMemories: false, totalSessions: 0, maturity: "cold", tier: 0 },
          ...own,
          config: { ...config, namespace: cfg.workspace ?? null, socketPath: cfg.socketPath },
          error: why(e),
        };
      }
    };

    if (typeof api.registerGatewayMethod === "function")
      api.registerGatewayMethod(
        "cortex.status",
        async (/** @type {{ respond: (ok: boolean, payload?: unknown, error?: unknown) => void }} */ { respond }) => {
          respond(true, await pluginStatus());
        },
      );
    else log.info?.("cortexd: this OpenClaw has no gateway methods; cortex.status is not served");

    if (typeof api.registerTool !== "function")
      log.info?.("cortexd: this OpenClaw has no plugin tools; cortex_search_memory and cortex_save_memory are off");
    else {
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
                { timeoutMs: cfg.toolTimeoutMs },
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
                { timeoutMs: cfg.toolTimeoutMs },
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
    }

    const statusLine = async () => {
      const s = await pluginStatus();
      if (!s.healthy && s.error) return `cortexd is not available: ${s.error}`;
      const w = s.workspaces?.[0];
      return `cortexd ${s.version}: ${s.healthy ? "healthy" : "degraded"}; ${w ? `${w.files} files, ${w.chunks} chunks` : "no workspace"}; recall p50 ${s.recallMetrics.p50} ms; capture queue ${s.retryQueuePending}`;
    };
    for (const cmd of chatCommands({ call, sessions, ws, toolTimeoutMs: cfg.toolTimeoutMs, statusLine }))
      api.registerCommand?.(cmd);

    api.registerCli?.(cortexCliRegistrar({ call, cfg, ws, ignored, close: () => client.close() }), {
      descriptors: CLI_DESCRIPTORS,
    });

    api.registerService?.({
      id: "cortexd-client",
      async start(/** @type {any} */ ctx) {
        captureQueue(typeof ctx?.stateDir === "string" ? ctx.stateDir : undefined);
        // Connect now: the first recall then costs one round trip, not a connect as well.
        try {
          await client.warm();
          const s = await call("cortex.status", {}, STATUS_TIMEOUT_MS);
          const w = cfg.workspace
            ? s.workspaces?.find((/** @type {any} */ x) => x.name === cfg.workspace || x.root === cfg.workspace)
            : s.workspaces?.[0];
          const k = s.knowledgeState;
          log.info?.(
            `cortexd connected — ${num(w?.chunks ?? 0)} memories, ${num(k.totalSessions)} sessions (${k.maturity}), tier ${k.tier}`,
          );
        } catch (e) {
          log.info?.(`cortexd not reachable yet (${why(e)}); recall and capture resume when it is`);
        }
      },
      async stop() {
        const m = metrics.summary();
        log.debug?.(
          `cortexd recall latency: p50 ${m.p50} ms, p95 ${m.p95} ms, p99 ${m.p99} ms over ${m.count} recalls`,
        );
        const q = shared.queue;
        shared.queue = null; // a later start (a reload) opens it again from its file
        await q?.close();
        client.close();
      },
    });
  },
};

export default plugin;
