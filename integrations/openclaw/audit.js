// @ts-check
/**
 * The audit log of what cortexd gave this gateway (cortexd records every recall and search answer:
 * time, session, scope, query, which memories with their paths and lines; docs/security.md).
 *
 * - `auditLog` (config, default true): whether the plugin's calls are recorded;
 * - `/audit`: on or off, and the latest entries (of this conversation when it has a session);
 * - `/audit on`, `/audit off`: turn recording on or off for this gateway until it restarts.
 * The commands answer from cortexd directly, without calling the model.
 */

const TAIL = 5;
const STATUS_TIMEOUT_MS = 5000;

/** @param {unknown} e */
function why(e) {
  return e instanceof Error ? e.message : String(e);
}

/** @param {any} e an audit entry */
function line(e) {
  const mems = Array.isArray(e.memories)
    ? e.memories.map((/** @type {any} */ m) => `${m.path}:${m.startLine}-${m.endLine} (${m.visibility})`).join(", ")
    : "";
  const q = typeof e.query === "string" ? JSON.stringify(e.query.slice(0, 80)) : `#${String(e.queryHash).slice(0, 12)}`;
  return `${e.at} ${String(e.method).replace("memory.", "")} [${e.scope}] ${q}: ${e.memories?.length ?? 0} memories, ${e.bytes} bytes${mems ? ` — ${mems}` : ""}`;
}

/**
 * Registers /audit and returns what the plugin's calls add to their params.
 * @param {any} api
 * @param {{ call: (method: string, params: object, opts?: { timeoutMs?: number }) => Promise<any> }} client
 * @param {{ on: boolean }} state the switch, shared by every registration of the plugin in this process
 *   (the gateway registers the commands and the hooks from different registries)
 */
export function registerAudit(api, client, state) {
  api.registerCommand?.({
    name: "audit",
    description: "cortexd audit log: /audit (latest entries), /audit on, /audit off",
    acceptsArgs: true,
    handler: async (/** @type {any} */ ctx) => {
      const arg = String(ctx?.args ?? "")
        .trim()
        .toLowerCase();
      if (arg === "on" || arg === "off") {
        state.on = arg === "on";
        return {
          text: `cortexd audit log ${state.on ? "on" : "off"}: recall and search answers to this gateway are ${state.on ? "" : "not "}recorded.`,
        };
      }
      if (arg) return { text: `usage: /audit, /audit on, /audit off (got "${arg}")` };
      try {
        const session = typeof ctx?.sessionKey === "string" ? ctx.sessionKey : undefined;
        const r = await client.call(
          "audit.tail",
          { limit: TAIL, ...(session ? { session_id: session } : {}) },
          { timeoutMs: STATUS_TIMEOUT_MS },
        );
        const head = `cortexd audit log: ${state.on && r.enabled ? "on" : "off"}${state.on && !r.enabled ? " (off in cortexd's config)" : ""} (${r.path})`;
        const entries = r.entries.length ? r.entries.map(line).join("\n") : "no entries yet";
        return { text: `${head}\n${entries}` };
      } catch (e) {
        return { text: `cortexd is not available: ${why(e)}` };
      }
    },
  });
  return {
    /** Params for a recall or search: who asks, for which session, and whether to record it. */
    params(/** @type {string | undefined} */ session) {
      return { client: "openclaw", ...(session ? { session_id: session } : {}), ...(state.on ? {} : { audit: false }) };
    },
  };
}
