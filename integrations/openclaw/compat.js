// @ts-check
/**
 * The Cortex plugin's config keys (its README's table), so a config pasted from it is accepted.
 * Those that apply to a local daemon are honoured; those that cannot (a cloud API key, a cloud user
 * id, cloud recall modes, cloud dedupe knobs) are accepted and named in one warning at load.
 * `namespace` names the cortexd workspace (when `workspace` is not set).
 */

/** JSON Schema of the Cortex keys (merged into config.js's schema and the manifest). */
export const CORTEX_KEYS = {
  recallLimit: {
    type: "integer",
    minimum: 1,
    maximum: 50,
    description: "Cortex: max memories per recall (cortexd: the recall block's line limit)",
  },
  recallTopK: {
    type: "integer",
    minimum: 1,
    maximum: 50,
    description: "Cortex: memories kept after scoring (cortexd: the lower of recallLimit and recallTopK)",
  },
  toolTimeoutMs: {
    type: "integer",
    minimum: 1000,
    maximum: 120000,
    default: 10000,
    description: "timeout of the tools, /checkpoint, /sleep and `openclaw cortex`",
  },
  captureMaxPayloadBytes: {
    type: "integer",
    minimum: 1024,
    maximum: 1048576,
    default: 262144,
    description: "max size of a capture; the oldest messages are trimmed first",
  },
  captureFilter: {
    type: "boolean",
    default: true,
    description: "drop heartbeats, terminal artefacts and token counters from captures",
  },
  namespace: {
    type: "string",
    description: "Cortex: memory namespace (cortexd: the workspace, when `workspace` is unset)",
  },
  recallReferenceDate: {
    type: "string",
    description: "fixed date (YYYY-MM-DD or ISO 8601) relative dates in prompts count from; for benchmarks",
  },
  fileSync: { type: "boolean", default: true, description: "recall from the memory files (daily logs, notes)" },
  transcriptSync: { type: "boolean", default: true, description: "recall from past session transcripts" },
  // Accepted, not applicable to a local daemon (named in one warning).
  apiKey: { type: "string", description: "Cortex cloud only: ignored (cortexd is local, no key)" },
  baseUrl: { type: "string", description: "Cortex cloud only: ignored (cortexd is reached over its socket)" },
  userId: { type: "string", description: "Cortex cloud only: ignored (memory is the workspace's files)" },
  recallProfile: { type: "string", description: "Cortex cloud only: ignored (cortexd has one recall ranking)" },
  recallQueryType: { type: "string", description: "Cortex cloud only: ignored (cortexd has one recall ranking)" },
  dedupeWindowMinutes: {
    type: "number",
    minimum: 0,
    maximum: 10080,
    description: "Cortex cloud only: ignored (cortexd dedupes saves over 30 minutes itself)",
  },
  noveltyThreshold: {
    type: "number",
    minimum: 0,
    maximum: 1,
    description: "Cortex cloud only: ignored (cortexd dedupes by word overlap itself)",
  },
};

/** Why each inapplicable key does nothing here. */
const IGNORED = {
  apiKey: "cortexd is local and needs no key",
  baseUrl: "cortexd is reached over its Unix socket",
  userId: "memory belongs to the workspace's files, not a cloud user",
  recallProfile: "cortexd has one recall ranking",
  recallQueryType: "cortexd has one recall ranking",
  dedupeWindowMinutes: "cortexd dedupes saves itself",
  noveltyThreshold: "cortexd dedupes saves itself",
};

/** The inapplicable Cortex keys present in a config. @param {unknown} raw @returns {string[]} */
export function ignoredCortexKeys(raw) {
  if (!raw || typeof raw !== "object") return [];
  return Object.keys(IGNORED).filter((k) => Object.hasOwn(raw, k));
}

/** One warning line naming them, or null. @param {unknown} raw */
export function ignoredKeysWarning(raw) {
  const keys = ignoredCortexKeys(raw);
  if (keys.length === 0) return null;
  const why = [...new Set(keys.map((k) => /** @type {Record<string, string>} */ (IGNORED)[k]))].join("; ");
  return `cortexd: Cortex plugin settings ignored: ${keys.join(", ")} (${why})`;
}

/**
 * The Cortex settings cortexd honours, normalized.
 * @param {unknown} raw
 * @param {(v: unknown, d: number, lo: number, hi: number) => number} int
 */
export function cortexSettings(raw, int) {
  const c = /** @type {Record<string, unknown>} */ (raw && typeof raw === "object" ? raw : {});
  const limit = c.recallLimit === undefined ? undefined : int(c.recallLimit, 10, 1, 50);
  const topK = c.recallTopK === undefined ? undefined : int(c.recallTopK, 10, 1, 50);
  const lines = limit === undefined ? topK : topK === undefined ? limit : Math.min(limit, topK);
  return {
    /** @type {number | undefined} memory.recall's limit (lines in the block) */
    recallLimit: lines,
    toolTimeoutMs: int(c.toolTimeoutMs, 10_000, 1000, 120_000),
    captureMaxPayloadBytes: int(c.captureMaxPayloadBytes, 262_144, 1024, 1_048_576),
    captureFilter: c.captureFilter !== false,
    /** @type {string | undefined} */
    recallReferenceDate:
      typeof c.recallReferenceDate === "string" && /^\d{4}-\d{2}-\d{2}/.test(c.recallReferenceDate)
        ? c.recallReferenceDate
        : undefined,
    fileSync: c.fileSync !== false,
    transcriptSync: c.transcriptSync !== false,
  };
}
