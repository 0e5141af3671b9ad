import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { localDate } from "../src/memory-files/entry.js";
import { startDaemon, waitUntil, writeConfig, type TestDaemon } from "./helpers/daemon.js";
import { isolatedEnv } from "./helpers/cli.js";
import { BIN } from "./helpers/hooks.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

const running: TestDaemon[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const d of running.splice(0)) await d.stop();
});

type ToolResult = {
  content: { type: string; text: string }[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
};
const text = (r: unknown) => (r as ToolResult).content.map((c) => c.text).join("\n");

/** The SDK's client over stdio, spawning the real `cortexd mcp`. */
async function mcpClient(env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp"],
    env: { ...(process.env as Record<string, string>), CORTEXD_LOG_LEVEL: "warn", ...env },
    stderr: "pipe",
  });
  const client = new Client({ name: "cortexd-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

describe("cortexd mcp (SDK client over stdio, real daemon)", () => {
  it("lists the four tools and proxies them to the daemon; says clearly when the daemon is down", async () => {
    const root = tempDir();
    writeFiles(root, {
      "memory/2026-11-20.md":
        "# 2026-11-20\n\n- The Grafana dashboards are provisioned from the ops/grafana folder.\n- On-call rotation switches on Mondays at 10:00.\n",
    });
    const d = await startDaemon({ config: { workspaces: [{ path: root }], daemon: { debounceMs: 50, settleMs: 20 } } });
    running.push(d);
    await waitUntil(async () => (await d.call("memory.search", { query: "grafana", limit: 3 })).results.length > 0);
    const client = await mcpClient(d.env);

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["memory_get", "memory_save", "memory_search", "memory_status"]);
    const search = tools.find((t) => t.name === "memory_search")!;
    expect(search.inputSchema).toMatchObject({
      type: "object",
      properties: { query: { type: "string" } },
      required: ["query"],
    });

    const found = await client.callTool({
      name: "memory_search",
      arguments: { query: "where are the grafana dashboards provisioned", limit: 3 },
    });
    expect((found as ToolResult).isError).toBeFalsy();
    const hits = JSON.parse(text(found)) as { results: { path: string; citation: string; snippet: string }[] };
    expect(hits.results[0]).toMatchObject({
      path: "memory/2026-11-20.md",
      citation: expect.stringMatching(/^memory\/2026-11-20\.md#L\d+-L\d+$/),
    });
    expect(hits.results[0]!.snippet).toContain("ops/grafana");

    const got = await client.callTool({
      name: "memory_get",
      arguments: { path: "memory/2026-11-20.md", from: 3, lines: 1 },
    });
    expect(text(got)).toBe(
      "memory/2026-11-20.md lines 3-3 of 4:\n\n- The Grafana dashboards are provisioned from the ops/grafana folder.\n\n[truncated: 4 lines in all; continue with from=4]",
    );

    const saved = await client.callTool({
      name: "memory_save",
      arguments: { text: "Grafana alert routing moved to the #ops-alerts channel", tags: ["ops"], importance: 6 },
    });
    expect(text(saved)).toBe(`Saved to memory/${localDate()}.md#L3.`);
    expect(readFileSync(join(root, "memory", `${localDate()}.md`), "utf8")).toContain(
      "- Grafana alert routing moved to the #ops-alerts channel #ops <!-- importance: 6 -->",
    );
    const dup = await client.callTool({
      name: "memory_save",
      arguments: { text: "grafana alert routing moved to the ops-alerts channel" },
    });
    expect(text(dup)).toMatch(/^Not saved: a memory saved in the last 30 minutes says the same \(memory\/.*:3\)\.$/);

    const status = JSON.parse(text(await client.callTool({ name: "memory_status", arguments: {} }))) as {
      healthy: boolean;
      workspaces: { root: string; files: number }[];
    };
    expect(status.healthy).toBe(true);
    expect(status.workspaces[0]).toMatchObject({ root, files: 2 });

    const bad = await client.callTool({ name: "memory_get", arguments: { path: "../../etc/passwd" } });
    expect((bad as ToolResult).isError).toBe(true);
    expect(text(bad)).toMatch(/^cortexd refused the call: path refused/);

    await d.stop();
    const down = await client.callTool({ name: "memory_search", arguments: { query: "grafana" } });
    expect((down as ToolResult).isError).toBe(true);
    expect(text(down)).toMatch(/^cortexd is not running \(.*\)\. Start it with `cortexd start`/);
  });

  it("takes the JSON-RPC params (same names, bounds, unknown ones refused), answers with structuredContent for every tool's outputSchema, gives instructions, no listChanged", async () => {
    const root = tempDir();
    writeFiles(root, {
      "memory/2026-11-21.md":
        "# 2026-11-21\n\n- The nightly build runs on the ci-runner-7 host since the move to Hetzner.\n",
    });
    const d = await startDaemon({ config: { workspaces: [{ path: root }], daemon: { debounceMs: 50, settleMs: 20 } } });
    running.push(d);
    await waitUntil(
      async () => (await d.call("memory.search", { query: "nightly build", limit: 3 })).results.length > 0,
    );
    const client = await mcpClient(d.env);

    expect(client.getInstructions()).toMatch(/memory_search/);
    expect(client.getServerCapabilities()?.tools?.listChanged).toBeFalsy();

    const { tools } = await client.listTools();
    for (const t of tools) {
      expect(t.outputSchema, `${t.name} has no outputSchema`).toMatchObject({ type: "object" });
      expect(t.inputSchema, `${t.name} accepts unknown arguments`).toMatchObject({ additionalProperties: false });
    }
    const search = tools.find((t) => t.name === "memory_search")!;
    expect(Object.keys(search.inputSchema.properties ?? {}).sort()).toEqual(["limit", "minScore", "query"]);
    // The daemon's bound for limit (1..200), not a second one.
    expect(search.inputSchema.properties?.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 200 });

    // Unknown or out-of-range arguments are refused, as memory.search over JSON-RPC refuses them.
    for (const args of [
      { query: "nightly build", maxResults: 3 },
      { query: "nightly build", limit: 201 },
      { query: "nightly build", workspace_typo: "x" },
    ]) {
      const r = (await client.callTool({ name: "memory_search", arguments: args })) as ToolResult;
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(text(r)).toMatch(/Input validation error/);
    }
    const rpcRefusal = await d.call("memory.search", { query: "nightly build", maxResults: 3 } as never).then(
      () => "accepted",
      (e: unknown) => String(e),
    );
    expect(rpcRefusal).toMatch(/maxResults|unrecognized/i);

    const found = (await client.callTool({
      name: "memory_search",
      arguments: { query: "which host runs the nightly build", limit: 2 },
    })) as ToolResult;
    expect(found.structuredContent).toMatchObject({
      mode: expect.any(String),
      results: [
        {
          path: "memory/2026-11-21.md",
          citation: expect.stringMatching(/^memory\/2026-11-21\.md#L\d+-L\d+$/),
          snippet: expect.stringContaining("ci-runner-7"),
        },
      ],
    });
    const got = (await client.callTool({
      name: "memory_get",
      arguments: { path: "memory/2026-11-21.md", from: 1, lines: 1 },
    })) as ToolResult;
    expect(got.structuredContent).toMatchObject({
      path: "memory/2026-11-21.md",
      text: "# 2026-11-21",
      from: 1,
      to: 1,
      totalLines: 3,
      truncated: true,
      nextFrom: 2,
    });
    const saved = (await client.callTool({
      name: "memory_save",
      arguments: { text: "The nightly build artifacts are kept for 14 days", tags: ["ci"] },
    })) as ToolResult;
    expect(saved.structuredContent).toMatchObject({
      stored: true,
      path: `memory/${localDate()}.md`,
      startLine: 3,
      redactions: 0,
      offline: false,
    });
    const status = (await client.callTool({ name: "memory_status", arguments: {} })) as ToolResult;
    expect(status.structuredContent).toMatchObject({ healthy: true, workspaces: [{ root, files: 2 }] });
    const statusExtra = (await client.callTool({ name: "memory_status", arguments: { verbose: true } })) as ToolResult;
    expect(statusExtra.isError).toBe(true);
  });

  it("memory_save works with the daemon down, as `cortexd save` does: written, redacted, deduplicated, indexed when the daemon starts", async () => {
    const home = tempDir("cortexd-home-");
    const root = tempDir();
    writeFiles(root, { "MEMORY.md": "# Memory\n" });
    writeConfig(home, { workspaces: [{ path: root }], daemon: { debounceMs: 50, settleMs: 20 } });
    const client = await mcpClient(isolatedEnv(home, { CORTEXD_EMBEDDING_PROVIDER: "none" }));

    const saved = (await client.callTool({
      name: "memory_save",
      arguments: { text: "The VPN config lives in ops/wireguard, token ghp_abcdefghijklmnopqrstuvwxyz0123456789" },
    })) as ToolResult;
    expect(saved.isError, text(saved)).toBeFalsy();
    expect(saved.structuredContent).toMatchObject({
      stored: true,
      path: `memory/${localDate()}.md`,
      redactions: 1,
      offline: true,
    });
    expect(text(saved)).toMatch(/cortexd is not running: it is indexed when the daemon starts/);
    const log = readFileSync(join(root, "memory", `${localDate()}.md`), "utf8");
    expect(log).toContain("The VPN config lives in ops/wireguard");
    expect(log).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    const dup = (await client.callTool({
      name: "memory_save",
      arguments: { text: "the VPN config lives in ops/wireguard" },
    })) as ToolResult;
    expect(dup.structuredContent).toMatchObject({ stored: false, offline: true });

    // Searching needs the daemon: a clear error, not a crash.
    const down = (await client.callTool({ name: "memory_search", arguments: { query: "vpn" } })) as ToolResult;
    expect(down.isError).toBe(true);
    expect(text(down)).toMatch(/cortexd is not running/);

    const d = await startDaemon({ home });
    running.push(d);
    await waitUntil(
      async () =>
        (await d.call("memory.search", { query: "VPN config wireguard", limit: 3 })).results.some(
          (h) => h.path === `memory/${localDate()}.md`,
        ),
      30_000,
    );
  });
});
