import { z } from "zod";
import { MethodParams } from "../rpc/protocol.js";

/**
 * The MCP tools' input and output schemas. Inputs are the daemon's own JSON-RPC param schemas
 * (src/rpc/protocol.ts), narrowed to the fields a tool offers and given descriptions for the model:
 * the same names (`limit`, not `maxResults`), bounds and strictness (an unknown argument is refused).
 * The workspace is not a tool argument: `cortexd mcp --workspace` picks it for the server.
 */

const search = MethodParams["memory.search"].pick({ query: true, limit: true, minScore: true });
const get = MethodParams["memory.get"].pick({ path: true, from: true, lines: true });
const save = MethodParams["memory.save"].pick({ text: true, target: true, importance: true, tags: true });

export const toolInputs = {
  memory_search: search.extend({
    query: search.shape.query.describe("what to look for, in natural language"),
    limit: search.shape.limit.describe("number of results (default 6)"),
    minScore: search.shape.minScore.describe("drop results scoring below this (0..1)"),
  }),
  memory_get: get.extend({
    path: get.shape.path.describe("file path as returned by memory_search (e.g. memory/2026-11-28.md, MEMORY.md)"),
    from: get.shape.from.describe("first line (1-based, default 1)"),
    lines: get.shape.lines.describe("number of lines (default 120)"),
  }),
  memory_save: save.extend({
    text: save.shape.text.describe("the memory, one self-contained statement"),
    target: save.shape.target.describe(
      "daily (default: today's memory/YYYY-MM-DD.md) or memory (MEMORY.md, for lasting facts)",
    ),
    importance: save.shape.importance.describe("1..10"),
    tags: save.shape.tags.describe('tags, e.g. ["deploy"]'),
  }),
  memory_status: MethodParams["cortex.status"].strict(),
} as const;

const hit = z.object({
  path: z.string(),
  startLine: z.number().int(),
  endLine: z.number().int(),
  score: z.number(),
  /** path#Lstart-Lend */
  citation: z.string(),
  source: z.string(),
  snippet: z.string(),
});

const workspace = z.object({
  name: z.string(),
  root: z.string(),
  files: z.number().int(),
  chunks: z.number().int(),
  vectors: z.number().int(),
  lastSync: z.string().nullable(),
  lastError: z.string().nullable(),
});

export const toolOutputs = {
  memory_search: z.object({ results: z.array(hit), mode: z.enum(["hybrid", "keyword", "vector", "none"]) }),
  memory_get: z.object({
    path: z.string(),
    text: z.string(),
    from: z.number().int(),
    to: z.number().int(),
    totalLines: z.number().int(),
    truncated: z.boolean(),
    nextFrom: z.number().int().optional(),
  }),
  memory_save: z.object({
    stored: z.boolean().describe("false: a recent save says the same (see duplicateOf)"),
    path: z.string(),
    startLine: z.number().int().optional(),
    endLine: z.number().int().optional(),
    redactions: z.number().int().describe("secrets replaced by [REDACTED:kind] markers"),
    duplicateOf: z.string().optional(),
    indexed: z.boolean().optional(),
    offline: z.boolean().describe("the daemon was not running: the file was written and is indexed when it starts"),
  }),
  memory_status: z.object({
    healthy: z.boolean(),
    version: z.string(),
    knowledgeState: z
      .object({ hasMemories: z.boolean(), totalSessions: z.number(), maturity: z.string(), tier: z.number() })
      .passthrough(),
    workspaces: z.array(workspace),
    embedding: z.object({ state: z.string(), provider: z.string() }).passthrough(),
    watcher: z.object({ mode: z.string(), reason: z.string().optional() }),
    recallMetrics: z.object({ count: z.number(), p50: z.number(), p95: z.number(), p99: z.number() }),
    errors: z.array(z.object({ at: z.string(), message: z.string() })),
  }),
} as const;

export type ToolName = keyof typeof toolInputs;
export type ToolOutput<T extends ToolName> = z.infer<(typeof toolOutputs)[T]>;
