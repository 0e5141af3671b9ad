import { z } from "zod";

/** One workspace: a root with MEMORY.md, USER.md, memory/ and sessions/, indexed as its own namespace. */
export const WorkspaceSchema = z
  .object({
    path: z.string().min(1),
    /** Namespace name; default: the root's basename plus a short hash of its absolute path. */
    name: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, "use letters, digits, '.', '_' or '-'")
      .optional(),
    /** Extra directories holding *.jsonl transcripts, e.g. ~/.openclaw/agents/<id>/sessions. */
    transcriptDirs: z.array(z.string().min(1)).default([]),
    /** Extra markdown files or directories to index (as notes, or daily logs when dated). */
    extraPaths: z.array(z.string().min(1)).default([]),
    /**
     * Project directories whose agent sessions use this workspace: a Claude Code hook without an
     * explicit workspace picks the workspace whose root or project contains the event's cwd.
     */
    projects: z.array(z.string().min(1)).default([]),
    /**
     * Index Claude Code's own memory of the projects this workspace holds (auto-memory folders, agent
     * memory, the CLAUDE.md family; src/workspace/claude-code-memory.ts): read only, never written.
     * A project no such workspace holds goes to the first workspace that sets this.
     */
    claudeCodeMemory: z.boolean().optional(),
    /**
     * A team's workspace (a shared repo): indexed like any other, never private (its MEMORY.md is not
     * private scope), saved bullets carry the writer's tag, and saves land here only when it is named.
     */
    shared: z.boolean().optional(),
    /** Syncing this workspace between devices (see docs/multi-device.md). */
    sync: z.lazy(() => WorkspaceSyncSchema).optional(),
  })
  .strict();

const deviceName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "use 1-64 letters, digits, '_' or '-'");

export const WorkspaceSyncSchema = z
  .object({
    /** Today's log is memory/YYYY-MM-DD.<device>.md, so two devices never write the same file (file sync without merge). */
    perDeviceLog: z.boolean().default(false),
    /** Scheduled git sync (cron): commit cortexd's own appends, pull (merge), push. Absent: off. */
    git: z
      .string()
      .min(1)
      .refine((s) => s.trim().split(/\s+/).length >= 5 || s.startsWith("@"), {
        message: 'expected a cron expression such as "*/10 * * * *"',
      })
      .optional(),
  })
  .strict();

/** This machine, for per-device daily logs, commit messages and the writer's tag in team workspaces. */
export const DeviceSchema = z
  .object({
    /** Default: the host name's first label, reduced to letters, digits, '_' and '-'. */
    name: deviceName.optional(),
    /** Default: the login name. */
    user: deviceName.optional(),
  })
  .strict();

export const EmbeddingSchema = z
  .object({
    /**
     * auto: configured model → built-in model → keyword-only. local: `model` must work. none: keyword only.
     * openai-compatible: POST {baseUrl}/v1/embeddings (OpenAI, LM Studio, llama.cpp server, vLLM, …).
     * ollama: POST {baseUrl}/api/embed. A remote provider that is down is an error, never replaced by another model.
     */
    provider: z.enum(["auto", "local", "none", "openai-compatible", "ollama"]).default("auto"),
    /** local/auto: a GGUF path or an hf: URI (downloads only when allowDownload is true). Remote: the model name on the server. */
    model: z.string().min(1).optional(),
    /** Remote: the server's base URL. Default https://api.openai.com (openai-compatible), http://127.0.0.1:11434 (ollama). A trailing /v1 is accepted. */
    baseUrl: z.string().url().optional(),
    /** openai-compatible: NAME of the environment variable holding the API key (the key itself never goes in this file). */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name")
      .optional(),
    /** Remote: requested output dimension (sent as `dimensions`); default: whatever the first response returns. */
    dimensions: z.number().int().min(1).max(16384).optional(),
    /** openai-compatible: `input_type` sent with search queries, for asymmetric endpoints (e.g. "query"). */
    queryInputType: z.string().min(1).optional(),
    /** openai-compatible: `input_type` sent with documents (e.g. "passage" or "document"). */
    documentInputType: z.string().min(1).optional(),
    /** Remote: timeout per HTTP request (ms). */
    timeoutMs: z.number().int().min(100).max(600_000).default(30_000),
    /** Remote: retries on 429 / 5xx / network errors, with exponential backoff and jitter (Retry-After honoured). */
    maxRetries: z.number().int().min(0).max(10).default(4),
    /** Remote: estimated tokens per request (requests are also capped at batchSize texts). */
    batchTokens: z.number().int().min(256).max(1_000_000).default(8192),
    threads: z.number().int().min(1).max(64).default(1),
    contextSize: z.number().int().min(16).max(32768).optional(),
    allowDownload: z.boolean().default(false),
    /** Texts per embedding call. */
    batchSize: z.number().int().min(1).max(1024).default(64),
  })
  .strict();

export const ChunkingSchema = z
  .object({
    maxTokens: z.number().int().min(32).max(8192).default(400),
    overlapTokens: z.number().int().min(0).max(4096).default(80),
  })
  .strict()
  .refine((c) => c.overlapTokens < c.maxTokens, {
    message: "overlapTokens must be smaller than maxTokens",
    path: ["overlapTokens"],
  });

export const SearchSchema = z
  .object({
    vectorWeight: z.number().min(0).max(1).default(0.7),
    textWeight: z.number().min(0).max(1).default(0.3),
    /**
     * The BM25 score that becomes a keyword score of 0.5 (keyword = bm25 / (keywordHalfScore + bm25)).
     * Larger keeps strong matches apart in fusion; 1 makes every decent match look alike.
     */
    keywordHalfScore: z.number().min(0.1).max(1000).default(7),
    maxResults: z.number().int().min(1).max(1000).default(6),
    /**
     * The exactness guarantee: a query token (word, id, code, name, quoted phrase) held verbatim by at
     * most this many chunks puts them first in the results (0: off). See docs/recall.md.
     */
    exactChunks: z.number().int().min(0).max(20).default(3),
    /** Candidates fetched per leg = maxResults × this (capped at 200). */
    candidateMultiplier: z.number().int().min(1).max(50).default(4),
    snippetChars: z.number().int().min(50).max(20000).default(700),
    /** How the keyword and vector legs merge: weighted score sum, or reciprocal-rank fusion. */
    fusion: z.enum(["weighted", "rrf"]).default("weighted"),
    /** RRF constant k (score = Σ 1/(k + rank)). */
    rrfK: z.number().int().min(1).max(1000).default(60),
    /** Recency tie-breaker for dated daily logs and transcripts: added weight × 2^(−age/halfLife). Curated files are evergreen. */
    recencyHalfLifeDays: z.number().min(0.1).max(36500).default(30),
    recencyWeight: z.number().min(0).max(0.5).default(0.05),
    /** Boost for files whose path matches the query (e.g. a date in a daily log's name). */
    pathWeight: z.number().min(0).max(1).default(0.1),
    /** `<!-- importance: N -->` (1–10) multiplies the score by 1 + importanceStep × (N − 5). */
    importanceStep: z.number().min(0).max(0.2).default(0.05),
    /** MMR diversity: λ·relevance − (1−λ)·similarity to what is already chosen; 1 = off. */
    mmrLambda: z.number().min(0).max(1).default(0.7),
    /** Token-Jaccard similarity from which MMR counts two memories as near-duplicates. */
    mmrThreshold: z.number().min(0).max(1).default(0.5),
    /** Results below this are dropped, except that keyword matches are never all dropped. */
    minScore: z.number().min(0).max(1).default(0),
    /**
     * Passage stage: + passageWeight × the best line's (or message's) similarity to the query, for
     * the best `passageCandidates` chunks. auto: only with static models (the built-in one), where
     * embedding a line costs microseconds; on: with any model (slow with large or remote models).
     */
    passages: z.enum(["auto", "on", "off"]).default("auto"),
    passageWeight: z.number().min(0).max(1).default(0.2),
    passageCandidates: z.number().int().min(1).max(200).default(30),
  })
  .strict();

/** memory.recall: what is injected into a prompt (see docs/recall.md). */
export const RecallSchema = z
  .object({
    /** auto: inject only memories judged relevant (empty when none is); off: the budget's worth of the best, as search ranks them. */
    relevance: z.enum(["auto", "off"]).default("auto"),
    /** Keyword evidence: the share of the prompt's word weight (idf; words the index lacks count fully) a memory must hold. */
    minCoverage: z.number().min(0).max(1).default(0.35),
    /** A prompt word is topical in an index when at most this share of its chunks hold it (a name found in every chunk is not). */
    rareShare: z.number().min(0).max(1).default(0.5),
    /** A name in the prompt (capitalised, not opening a sentence) that at least this share of the chunks hold is a subject of the memory: the prompt is about it. */
    subjectShare: z.number().min(0).max(1).default(0.5),
    /** Vector evidence: how many standard deviations a memory's similarity must stand above the prompt's similarity to random memories of the index. */
    vectorZ: z.number().min(0).max(20).default(4.5),
    /** Once one memory is relevant, others are kept when they score at least this fraction of the best relevant one. */
    keepRatio: z.number().min(0).max(1).default(0.6),
    /** Dates in the prompt ("last week", "March 2023"): + dateWeight to memories dated in that window. */
    dateWeight: z.number().min(0).max(1).default(0.1),
    /** Gathering prompts ("how many times …", "which places …"): at most this many memories of one day or session before the others get a turn. */
    gatherPerDay: z.number().int().min(1).max(50).default(2),
    /** The best this-many memories are shown whole; the others as excerpts (their lines that match the prompt). */
    wholeTop: z.number().int().min(0).max(50).default(3),
  })
  .strict();

export const CacheSchema = z
  .object({
    /** Embedding cache entries kept per namespace (least recently used pruned). */
    maxEntries: z.number().int().min(0).default(100_000),
  })
  .strict();

export const DaemonSchema = z
  .object({
    /** Quiet time after the last file event before indexing (ms). */
    debounceMs: z.number().int().min(0).max(60_000).default(300),
    /** A changed file must keep the same size and mtime for this long before it is indexed (ms). */
    settleMs: z.number().int().min(0).max(10_000).default(50),
    /** auto: native file events, falling back to polling on failure; poll: polling only; off: no watching. */
    watch: z.enum(["auto", "poll", "off"]).default("auto"),
    /** Full reconcile interval while polling (ms). */
    pollIntervalMs: z.number().int().min(250).max(3_600_000).default(5_000),
    /** Full reconcile interval while watching, to catch anything events missed (ms). */
    reconcileIntervalMs: z.number().int().min(1_000).max(86_400_000).default(600_000),
    /** Socket path; default $XDG_RUNTIME_DIR/cortexd/cortexd.sock. */
    socketPath: z.string().min(1).optional(),
    /** Largest JSON-RPC request line accepted (bytes). */
    maxRequestBytes: z
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .default(1024 * 1024),
    /**
     * An index up to this size (MB) is checked (SQLite quick_check) before the daemon answers; a larger
     * one once it answers, in the background (the check reads the whole file: ~45 s at 1M chunks).
     */
    checkBeforeListeningMb: z.number().int().min(0).max(1_000_000).default(256),
  })
  .strict();

const cron = z
  .string()
  .min(1)
  .refine((s) => s.trim().split(/\s+/).length >= 5 || s.startsWith("@"), {
    message: 'expected a cron expression such as "*/5 * * * *"',
  });

export const ScheduleSchema = z
  .object({
    heartbeat: cron.default("*/5 * * * *"),
    consolidation: cron.default("0 3 * * *"),
    /** Consolidation appends promotion candidates to MEMORY.md by itself (after a backup); default: list only. */
    autoPromote: z.boolean().default(false),
    /** IANA time zone for the cron expressions; default the system's. */
    timezone: z.string().min(1).optional(),
  })
  .strict();

/** The audit log of what recall and search gave to hosts (src/audit, docs/security.md). */
export const AuditSchema = z
  .object({
    /** Record every recall/search answer (a request may still say `audit: false`, the OpenClaw plugin's /audit off). */
    enabled: z.boolean().default(true),
    /** "text": the query as asked (secrets redacted); "hash": only its sha256. */
    query: z.enum(["text", "hash"]).default("text"),
    /** Size of audit.jsonl before it is rotated to audit.jsonl.1 (older ones shift up). */
    maxBytes: z
      .number()
      .int()
      .min(4096)
      .max(1024 * 1024 * 1024)
      .default(8 * 1024 * 1024),
    /** Rotated files kept besides the current one. */
    keep: z.number().int().min(0).max(20).default(3),
  })
  .strict();

/** The local memory console (src/console, docs/console.md): a web page served on loopback only. */
export const UiSchema = z
  .object({
    /** Serve the console when the daemon starts (otherwise only on demand, from `cortexd ui`). */
    enabled: z.boolean().default(false),
    /** Loopback port (0: one chosen by the system at each start). */
    port: z.number().int().min(0).max(65535).default(0),
  })
  .strict();

export const ConfigSchema = z
  .object({
    workspaces: z
      .array(WorkspaceSchema)
      .min(1)
      .default([{ path: "~/.openclaw/workspace", transcriptDirs: [], extraPaths: [], projects: [] }]),
    /** Where indexes, models and state live; default $XDG_DATA_HOME/cortexd. */
    dataDir: z.string().min(1).optional(),
    embedding: EmbeddingSchema.default(EmbeddingSchema.parse({})),
    chunking: ChunkingSchema.default(ChunkingSchema.parse({})),
    search: SearchSchema.default(SearchSchema.parse({})),
    recall: RecallSchema.default(RecallSchema.parse({})),
    cache: CacheSchema.default(CacheSchema.parse({})),
    daemon: DaemonSchema.default(DaemonSchema.parse({})),
    schedule: ScheduleSchema.default(ScheduleSchema.parse({})),
    audit: AuditSchema.default(AuditSchema.parse({})),
    ui: UiSchema.default(UiSchema.parse({})),
    logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("warn"),
    device: DeviceSchema.optional(),
  })
  .strict();

export type ConfigInput = z.input<typeof ConfigSchema>;
export type Config = z.output<typeof ConfigSchema>;
export type WorkspaceConfig = z.output<typeof WorkspaceSchema>;
export type EmbeddingConfig = z.output<typeof EmbeddingSchema>;
export type SearchConfig = z.output<typeof SearchSchema>;
export type RecallConfig = z.output<typeof RecallSchema>;
export type DaemonConfig = z.output<typeof DaemonSchema>;
export type ScheduleConfig = z.output<typeof ScheduleSchema>;
export type DeviceConfig = z.output<typeof DeviceSchema>;
export type AuditConfig = z.output<typeof AuditSchema>;
export type UiConfig = z.output<typeof UiSchema>;
