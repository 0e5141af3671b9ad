import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { isolatedEnv } from "./helpers/cli.js";
import { BIN } from "./helpers/hooks.js";
import { tempDir } from "./helpers/workspace.js";

/**
 * MCP framing errors (issue #34), against the real `cortexd mcp` process: each is answered per
 * JSON-RPC 2.0 and logged on stderr, and the server keeps serving. Before: array params got no
 * reply, `arguments: null` got -32603 with a raw schema dump, a 10 MB unterminated line made the
 * server exit 0 without a word.
 */
interface Reply {
  id: number | string | null;
  result?: unknown;
  error?: { code: number; message: string };
}

describe("cortexd mcp: framing errors answered and logged", () => {
  it("array params, arguments: null, a 10 MB unterminated line, not JSON: each answered; later requests still served", async () => {
    const home = tempDir();
    const child = spawn(process.execPath, [BIN, "mcp"], {
      env: { ...isolatedEnv(home), CORTEXD_LOG_LEVEL: "warn" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    let exited: number | null | undefined;
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", (code) => (exited = code));
    const replies = () =>
      out
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l) as Reply);
    const byId = (id: number | null) => replies().filter((r) => r.id === id);
    const until = async (ok: () => boolean) => {
      for (let i = 0; i < 300 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
      expect(ok(), `stdout: ${out.slice(0, 2000)}\nstderr: ${err.slice(0, 2000)}`).toBe(true);
    };
    const send = (o: unknown) => child.stdin.write(JSON.stringify(o) + "\n");
    try {
      send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      });
      await until(() => byId(1).length === 1);
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: ["memory_search", { query: "x" }] });
      send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "memory_search", arguments: null } });
      child.stdin.write("{not json\n");
      await until(() => byId(3).length === 1 && byId(null).length === 1);
      expect(byId(2)[0]!.error).toMatchObject({
        code: -32602,
        message: expect.stringMatching(/params must be an object/),
      });
      expect(byId(3)[0]!.error).toMatchObject({
        code: -32602,
        message: expect.stringMatching(/arguments must be an object/),
      });
      expect(byId(3)[0]!.error!.message).not.toMatch(/invalid_type|expected/);
      expect(byId(null)[0]!.error!.code).toBe(-32700);

      // 10 MB without a newline, then the line ends: answered once, discarded, the server lives on.
      for (let i = 0; i < 10; i++) child.stdin.write("x".repeat(1024 * 1024));
      child.stdin.write("\n");
      await until(() => byId(null).length === 2);
      expect(byId(null)[1]!.error).toMatchObject({ code: -32700, message: expect.stringMatching(/longer than/) });
      send({ jsonrpc: "2.0", id: 4, method: "tools/list", params: {} });
      await until(() => byId(4).length === 1);
      expect(byId(4)[0]!.result).toBeDefined();
      expect(exited).toBeUndefined();
      expect(err).toMatch(/params must be an object/);
      expect(err).toMatch(/arguments must be an object/);
      expect(err).toMatch(/longer than/);
    } finally {
      child.kill();
    }
  }, 60_000);
});
