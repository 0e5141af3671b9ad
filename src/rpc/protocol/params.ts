import { z } from "zod";

/** The parameter schemas of the JSON-RPC methods (the server validates with them; MCP derives its tools from them). */

/** A file path: 1–4,096 characters, no NUL byte (no file system accepts one). */
const filePath = z
  .string()
  .min(1)
  .max(4096)
  .refine((s) => !s.includes("\0"), { message: "contains a NUL byte" });
const workspace = filePath.optional();
const session_id = z.string().min(1).max(512);
/** Agent messages ({role, content} or OpenClaw/Claude Code transcript records). */
const messages = z.array(z.unknown()).max(10_000).optional();
/** Absolute path of a JSONL transcript. */
const transcript_path = filePath.optional();
/** The agent session's working directory: without `workspace`, picks the workspace containing it. */
const cwd = z.string().max(4096).optional();
/** Who may see what is read (docs/security.md, "Visibility"): "private" (default: a local caller's own) or "group". */
const scope = z.enum(["private", "group"]).optional();
/** The group conversation asking (its session key, e.g. agent:main:telegram:group:-100123): a group scope also sees that group's memories. */
const group = z.string().min(1).max(512).optional();
/** The audit log (docs/security.md): who asks ("claude-code", "openclaw", "mcp", "cli", …), for which session, and whether to record it (default: the config's audit.enabled). */
const auditParams = {
  client: z.string().min(1).max(64).optional(),
  session_id: session_id.optional(),
  audit: z.boolean().optional(),
};
/**
 * Which sessions may recover each other (host and conversation scope, e.g. "openclaw:main:private"):
 * a session's recovery note only ever comes from a session of the same lineage; none = Claude Code's.
 */
const lineage = z.string().min(1).max(256).optional();

export const MethodParams = {
  "memory.search": z
    .object({
      query: z.string().max(100_000),
      limit: z.number().int().min(1).max(200).optional(),
      minScore: z.number().min(0).max(1).optional(),
      workspace,
      explain: z.boolean().optional(),
      /** Return the wall time of each ranking stage (`timings`, ms). */
      timings: z.boolean().optional(),
      scope,
      group,
      ...auditParams,
    })
    .strict(),
  "memory.get": z
    .object({
      path: filePath,
      from: z.number().int().min(1).optional(),
      lines: z.number().int().min(1).max(10_000).optional(),
      workspace,
      scope,
      group,
    })
    .strict(),
  "memory.recall": z
    .object({
      query: z.string().max(100_000),
      budgetTokens: z.number().int().min(1).max(100_000).optional(),
      workspace,
      /** "private" (default) sees every memory; "group" never MEMORY.md/USER.md nor a private session's or another group's memories. */
      scope,
      group,
      ...auditParams,
      limit: z.number().int().min(1).max(100).optional(),
      /** Also show memories superseded by newer ones (marked), not only current facts. */
      includeHistory: z.boolean().optional(),
      /** Leave out MEMORY.md/USER.md: the host already puts them in its prompt (OpenClaw does). */
      excludeCurated: z.boolean().optional(),
      /** Recall only from these: "files" (memory files, notes), "transcripts" (past sessions); default both. */
      sources: z
        .array(z.enum(["files", "transcripts"]))
        .min(1)
        .max(2)
        .optional(),
      /** The host the recall is for: "claude-code" leaves out what Claude Code loads for `cwd` itself (its CLAUDE.md files, the auto-memory MEMORY.md). */
      host: z.enum(["claude-code"]).optional(),
      /** Return the wall time of each stage (`timings`, ms). */
      timings: z.boolean().optional(),
      cwd,
      /** Say why each memory was kept or dropped, or why nothing was returned. */
      explain: z.boolean().optional(),
      /** The day relative dates in the query count from ("yesterday", "last week"): YYYY-MM-DD or an ISO date-time; default now. */
      referenceDate: z
        .string()
        .max(64)
        .refine(
          (s) => /^\d{4}-\d{2}-\d{2}/.test(s) && !Number.isNaN(Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s)),
          {
            message: "expected YYYY-MM-DD or an ISO 8601 date-time",
          },
        )
        .optional(),
    })
    .strict(),
  "memory.save": z
    .object({
      text: z.string().min(1).max(100_000),
      target: z.enum(["daily", "memory"]).optional(),
      workspace,
      importance: z.number().int().min(1).max(10).optional(),
      tags: z.array(z.string().min(1).max(64)).max(32).optional(),
      /** The session saving: a group session's save is that group's (and may not go to MEMORY.md); default private. */
      session_id: session_id.optional(),
      /** "group": the save comes from a group conversation (refused for target "memory"). */
      scope,
    })
    .strict(),
  "memory.capture": z
    .object({
      session_id,
      messages,
      transcript_path,
      workspace,
      cwd,
    })
    .strict()
    .refine((p) => p.messages !== undefined || p.transcript_path !== undefined, {
      message: "give messages or transcript_path",
    }),
  /** A session starts: recovery note if the previous one ended uncleanly, plus recent memory. */
  "session.start": z
    .object({
      session_id,
      source: z.string().max(64).optional(),
      cwd,
      /** Characters of recent daily-log context (default 2,000; 0 = none). */
      maxChars: z.number().int().min(0).max(10_000).optional(),
      lineage,
      workspace,
    })
    .strict(),
  /** Activity (a prompt) in a session; the prompt becomes its latest goal. */
  "session.touch": z
    .object({ session_id, prompt: z.string().max(100_000).optional(), cwd, lineage, workspace })
    .strict(),
  /** Capture what is left (when a transcript/messages are given), then write the session summary (or the one given). */
  "session.checkpoint": z
    .object({ session_id, messages, transcript_path, summary: z.string().min(1).max(4000).optional(), workspace, cwd })
    .strict(),
  /** A clean end: capture what is left, checkpoint (unless checkpoint: false), mark the session ended. */
  "session.sleep": z
    .object({
      session_id,
      messages,
      transcript_path,
      reason: z.string().max(64).optional(),
      checkpoint: z.boolean().optional(),
      workspace,
      cwd,
    })
    .strict(),
  /** Forgets the workspace's session state (lifecycle, recovery, capture watermarks); never touches memory files. */
  "session.reset": z.object({ workspace }).strict(),
  "index.sync": z.object({ path: filePath.optional(), workspace, force: z.boolean().optional() }).strict(),
  "index.status": z.object({ workspace }).strict(),
  /** The index over time: files and chunks of each kind per day or month of their memories (default month, at most `limit` periods). */
  "index.history": z
    .object({
      workspace,
      by: z.enum(["day", "month"]).optional(),
      limit: z.number().int().min(1).max(400).optional(),
      scope,
      group,
    })
    .strict(),
  /** Runs consolidation now (every workspace, or one); dryRun computes and reports without changing the index. */
  "consolidate.run": z.object({ workspace, dryRun: z.boolean().optional() }).strict(),
  /** The latest consolidation reports (default 1 per workspace). */
  "consolidate.report": z.object({ workspace, limit: z.number().int().min(1).max(30).optional() }).strict(),
  /** Promotion candidates: recalled often (≥ 3 recalls, ≥ 3 distinct queries, last 30 days). */
  "promote.list": z.object({ workspace }).strict(),
  /** Appends the candidates to MEMORY.md under a dated heading, after a backup; idempotent. */
  "promote.apply": z.object({ workspace }).strict(),
  /** Runs the scheduled git sync now (every workspace with `sync.git`, or the one named). */
  "sync.git": z.object({ workspace }).strict(),
  "cortex.status": z.object({}).passthrough(),
  /** The newest audit entries (docs/security.md): recall/search answers given to hosts. */
  "audit.tail": z
    .object({
      session_id: session_id.optional(),
      /** ISO date/time, or "30m", "2h", "7d". */
      since: z.string().max(64).optional(),
      limit: z.number().int().min(1).max(1000).optional(),
    })
    .strict(),
  /** Starts the local memory console (docs/console.md) if it is not serving yet; returns its URL with this start's token. */
  "console.open": z.object({}).strict(),
  "daemon.ping": z.object({}).strict(),
  "daemon.shutdown": z.object({}).strict(),
  "daemon.reload": z.object({}).strict(),
} as const;

export type MethodName = keyof typeof MethodParams;
export type ParamsOf<M extends MethodName> = z.input<(typeof MethodParams)[M]>;
