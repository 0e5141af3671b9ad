// @ts-check
/**
 * The plugin's config: one JSON Schema (mirrored verbatim in openclaw.plugin.json, which must be
 * static JSON; a test keeps the two equal), the SDK-shaped schema object OpenClaw validates with
 * ({ safeParse, jsonSchema }, as `buildJsonPluginConfigSchema` of openclaw/plugin-sdk builds it),
 * and the normalized config the plugin runs with.
 */
import { defaultSocketPath } from "./client.js";
import { CORTEX_KEYS, cortexSettings } from "./compat.js";

export { ignoredCortexKeys, ignoredKeysWarning } from "./compat.js";

export const configJsonSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    socketPath: {
      type: "string",
      description:
        "cortexd's socket (default: as cortexd resolves it: $CORTEXD_SOCKET, else $XDG_RUNTIME_DIR/cortexd/cortexd.sock, else ~/.local/share/cortexd/run/cortexd.sock)",
    },
    workspace: {
      type: "string",
      description: "cortexd workspace (root path or namespace) to use; default: the daemon's first",
    },
    autoRecall: {
      type: "boolean",
      default: true,
      description: "recall memories into each prompt (before_prompt_build)",
    },
    autoCapture: { type: "boolean", default: true, description: "capture each run into today's daily log (agent_end)" },
    recallCurated: {
      type: "boolean",
      default: false,
      description: "also recall MEMORY.md/USER.md (OpenClaw already puts them in the system prompt)",
    },
    recallBudgetTokens: { type: "integer", minimum: 100, maximum: 20000, default: 2000 },
    recallTimeoutMs: { type: "integer", minimum: 20, maximum: 120000, default: 250 },
    captureTimeoutMs: { type: "integer", minimum: 100, maximum: 60000, default: 5000 },
    auditLog: {
      type: "boolean",
      default: true,
      description: "cortexd records each recall/search answer to this gateway in its audit log (/audit on|off)",
    },
    scope: {
      type: "string",
      enum: ["auto", "private", "group"],
      default: "auto",
      description: "auto: group chats never see MEMORY.md/USER.md",
    },
    ...CORTEX_KEYS,
  },
};

/**
 * @typedef {object} CortexdPluginConfig
 * @property {string} [socketPath]
 * @property {string} [workspace]
 * @property {boolean} [autoRecall]
 * @property {boolean} [autoCapture]
 * @property {boolean} [recallCurated]
 * @property {number} [recallBudgetTokens]
 * @property {number} [recallTimeoutMs]
 * @property {number} [captureTimeoutMs]
 * @property {boolean} [auditLog]
 * @property {"auto" | "private" | "group"} [scope]
 */

/**
 * Checks a config value against configJsonSchema (the subset of JSON Schema it uses).
 * @param {unknown} value
 * @returns {string[]} problems, each naming the key
 */
export function configProblems(value) {
  if (value === undefined || value === null) return [];
  if (typeof value !== "object" || Array.isArray(value)) return ["config must be an object"];
  /** @type {string[]} */
  const out = [];
  /** @type {Record<string, any>} */
  const props = configJsonSchema.properties;
  for (const [key, v] of Object.entries(value)) {
    const s = Object.hasOwn(props, key) ? props[key] : undefined;
    if (!s) {
      out.push(`${key}: unknown key (known: ${Object.keys(props).join(", ")})`);
      continue;
    }
    if (s.type === "string" && typeof v !== "string") out.push(`${key}: must be a string`);
    else if (s.type === "boolean" && typeof v !== "boolean") out.push(`${key}: must be true or false`);
    else if (s.type === "integer" && !(typeof v === "number" && Number.isInteger(v)))
      out.push(`${key}: must be an integer`);
    else if (s.type === "number" && !(typeof v === "number" && Number.isFinite(v)))
      out.push(`${key}: must be a number`);
    else if ((s.type === "integer" || s.type === "number") && (v < s.minimum || v > s.maximum))
      out.push(`${key}: must be from ${s.minimum} to ${s.maximum}`);
    else if (s.enum && !s.enum.includes(v)) out.push(`${key}: must be one of ${s.enum.join(", ")}`);
  }
  return out;
}

/** The config schema object OpenClaw's loader takes (OpenClawPluginConfigSchema). */
export const configSchema = {
  /** @param {unknown} value */
  safeParse(value) {
    const problems = configProblems(value);
    if (problems.length === 0) return { success: true, data: value };
    return {
      success: false,
      error: { issues: problems.map((p) => ({ path: [p.slice(0, p.indexOf(":"))].filter(Boolean), message: p })) },
    };
  },
  jsonSchema: configJsonSchema,
};

/** @param {unknown} raw */
export function normalizeConfig(raw) {
  const c = /** @type {CortexdPluginConfig} */ (raw && typeof raw === "object" ? raw : {});
  const int = (
    /** @type {unknown} */ v,
    /** @type {number} */ d,
    /** @type {number} */ lo,
    /** @type {number} */ hi,
  ) => (typeof v === "number" && Number.isFinite(v) ? Math.min(hi, Math.max(lo, Math.floor(v))) : d);
  return {
    socketPath: typeof c.socketPath === "string" && c.socketPath.trim() ? c.socketPath.trim() : defaultSocketPath(),
    /** @type {string | undefined} (the Cortex plugin's `namespace` names the workspace too) */
    workspace:
      typeof c.workspace === "string" && c.workspace
        ? c.workspace
        : typeof raw === "object" && raw && typeof (/** @type {any} */ (raw).namespace) === "string"
          ? /** @type {any} */ (raw).namespace || undefined
          : undefined,
    autoRecall: c.autoRecall !== false,
    autoCapture: c.autoCapture !== false,
    recallCurated: c.recallCurated === true,
    recallBudgetTokens: int(c.recallBudgetTokens, 2000, 100, 20000),
    recallTimeoutMs: int(c.recallTimeoutMs, 250, 20, 120000),
    captureTimeoutMs: int(c.captureTimeoutMs, 5000, 100, 60000),
    auditLog: c.auditLog !== false,
    /** @type {"auto" | "private" | "group"} */
    scope: c.scope === "private" || c.scope === "group" ? c.scope : "auto",
    ...cortexSettings(raw, int),
  };
}
