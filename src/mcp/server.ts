import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { CortexClient, DaemonUnavailableError, RpcCallError } from "../client/client.js";
import type { MethodName, MethodResults, ParamsOf } from "../rpc/protocol.js";
import { VERSION } from "../version.js";
import { errorMessage } from "../util/error-message.js";

/**
 * `cortexd mcp`: an MCP server (stdio, the official SDK) whose tools proxy to the running daemon:
 * memory_search, memory_get, memory_save, memory_status. Each call opens its own connection, so
 * the server survives daemon restarts; when the daemon is down a tool answers with isError and
 * says how to start it.
 */

export interface McpOptions {
  socketPath: string;
  workspace?: string;
  timeoutMs?: number;
}

export function createMcpServer(opts: McpOptions): McpServer {
  const server = new McpServer({ name: "cortexd", version: VERSION });
  const ws = opts.workspace ? { workspace: opts.workspace } : {};

  async function call<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<MethodResults[M]> {
    const client = await CortexClient.connect(opts.socketPath, { timeoutMs: opts.timeoutMs ?? 15_000 });
    try {
      return await (client.call as (m: M, p: ParamsOf<M>) => Promise<MethodResults[M]>)(method, params);
    } finally {
      client.close();
    }
  }

  async function tool(fn: () => Promise<string>): Promise<CallToolResult> {
    try {
      return { content: [{ type: "text", text: await fn() }] };
    } catch (e) {
      let text: string;
      if (e instanceof DaemonUnavailableError) {
        text =
          e.reason === "timeout"
            ? `cortexd did not answer in time (${e.message}); it may be busy indexing, try again`
            : `cortexd is not running (${e.message}). Start it with \`cortexd start\` (or \`cortexd service install\` to run it at login).`;
      } else if (e instanceof RpcCallError) text = `cortexd refused the call: ${e.message}`;
      else text = `cortexd tool failed: ${errorMessage(e)}`;
      return { content: [{ type: "text", text }], isError: true };
    }
  }

  server.registerTool(
    "memory_search",
    {
      title: "Search memory",
      description:
        "Search the user's memory files (MEMORY.md, daily logs memory/YYYY-MM-DD.md, session transcripts) with hybrid keyword + semantic search. " +
        "Returns ranked snippets with path#Lstart-Lend citations; use memory_get to read more around a hit.",
      inputSchema: {
        query: z.string().min(1).max(10_000).describe("what to look for, in natural language"),
        maxResults: z.number().int().min(1).max(50).optional().describe("number of results (default 6)"),
        minScore: z.number().min(0).max(1).optional().describe("drop results scoring below this (0..1)"),
      },
    },
    ({ query, maxResults, minScore }) =>
      tool(async () => {
        const r = await call("memory.search", { query, ...(maxResults ? { limit: maxResults } : {}), ...(minScore !== undefined ? { minScore } : {}), ...ws });
        if (r.results.length === 0) return `No memories found for "${query}".`;
        const hits = r.results.map((h) => ({
          path: h.path,
          startLine: h.startLine,
          endLine: h.endLine,
          score: Number(h.score.toFixed(3)),
          citation: `${h.path}#L${h.startLine}-L${h.endLine}`,
          source: h.source,
          snippet: h.snippet,
        }));
        return JSON.stringify({ results: hits, mode: r.mode }, null, 2);
      }),
  );

  server.registerTool(
    "memory_get",
    {
      title: "Read a memory file",
      description: "Read lines of a memory file (an index path from memory_search such as memory/2026-11-28.md, or MEMORY.md).",
      inputSchema: {
        path: z.string().min(1).max(4096).describe("file path as returned by memory_search"),
        from: z.number().int().min(1).optional().describe("first line (1-based, default 1)"),
        lines: z.number().int().min(1).max(2000).optional().describe("number of lines (default 120)"),
      },
    },
    ({ path, from, lines }) =>
      tool(async () => {
        const r = await call("memory.get", { path, ...(from ? { from } : {}), ...(lines ? { lines } : {}), ...ws });
        const more = r.nextFrom ? `\n\n[truncated: ${r.totalLines} lines in all; continue with from=${r.nextFrom}]` : "";
        return `${r.path} lines ${r.from}-${r.to} of ${r.totalLines}:\n\n${r.text}${more}`;
      }),
  );

  server.registerTool(
    "memory_save",
    {
      title: "Save a memory",
      description:
        "Save a durable fact, decision or preference to the user's memory: appended as a bullet to today's daily log (target daily) " +
        "or to the curated MEMORY.md (target memory). Secrets are redacted; a near-duplicate of a save from the last 30 minutes is skipped.",
      inputSchema: {
        text: z.string().min(1).max(20_000).describe("the memory, one self-contained statement"),
        target: z.enum(["daily", "memory"]).optional().describe("daily (default) or memory (MEMORY.md, for lasting facts)"),
        importance: z.number().int().min(1).max(10).optional().describe("1..10"),
        tags: z.array(z.string().min(1).max(64)).max(16).optional().describe("tags, e.g. [\"deploy\"]"),
      },
    },
    ({ text, target, importance, tags }) =>
      tool(async () => {
        const r = await call("memory.save", { text, ...(target ? { target } : {}), ...(importance ? { importance } : {}), ...(tags ? { tags } : {}), ...ws });
        if (!r.stored) return `Not saved: a memory saved in the last 30 minutes says the same (${r.duplicateOf ?? r.path}).`;
        const where = r.startLine !== undefined ? `${r.path}#L${r.startLine}${r.endLine !== r.startLine ? `-L${r.endLine}` : ""}` : r.path;
        return `Saved to ${where}.${r.redactions ? ` ${r.redactions} secret(s) were redacted.` : ""}`;
      }),
  );

  server.registerTool(
    "memory_status",
    {
      title: "Memory status",
      description: "Is the memory daemon healthy, what is indexed (files, chunks, vectors), which embedding model is used.",
      inputSchema: {},
    },
    () =>
      tool(async () => {
        const s = await call("cortex.status", {});
        return JSON.stringify(
          {
            healthy: s.healthy,
            version: s.version,
            knowledgeState: s.knowledgeState,
            workspaces: s.workspaces.map((w) => ({ name: w.name, root: w.root, files: w.files, chunks: w.chunks, vectors: w.vectors, lastSync: w.lastSync, lastError: w.lastError })),
            embedding: s.embedding,
            watcher: { mode: s.watcher.mode, ...(s.watcher.reason ? { reason: s.watcher.reason } : {}) },
            recallMetrics: s.recallMetrics,
            errors: s.errors.slice(-3),
          },
          null,
          2,
        );
      }),
  );

  return server;
}

/** Serves MCP on stdin/stdout until stdin closes. Logs go to stderr only (stdout is the protocol). */
export async function runMcpServer(opts: McpOptions): Promise<void> {
  const server = createMcpServer(opts);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.on("end", () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => {});
}
