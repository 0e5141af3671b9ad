import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { CortexClient } from "../src/client/client.js";
import { ErrorCodes } from "../src/rpc/protocol.js";
import { startRpcServer, type MethodHandlers, type RpcServer } from "../src/rpc/server.js";
import { prepareSocketDir } from "../src/rpc/socket-path.js";

/**
 * Every request has a deadline (issue #34): a handler that never answers (a read waiting on a FIFO,
 * a promise nobody resolves) is answered with -32008 naming the method, its run slot is freed, and
 * the handler is told to stop through its AbortSignal. A real server on a real Unix socket.
 */

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const servers: RpcServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function tempSocket(): string {
  const d = mkdtempSync(join(tmpdir(), "cxdl-"));
  dirs.push(d);
  const sock = join(d, "run", "cortexd.sock");
  prepareSocketDir(sock);
  return sock;
}

describe("request deadlines", () => {
  it("a handler that never answers gets -32008 naming the method, frees its slot, and is told to stop", async () => {
    const aborted: string[] = [];
    const handlers: MethodHandlers = {
      "daemon.ping": () => ({ pong: true, version: "test", pid: process.pid, uptimeMs: 1 }),
      "memory.search": (p, ctx) =>
        new Promise(() => {
          ctx.signal.addEventListener("abort", () => aborted.push(p.query));
        }),
      "memory.get": (p) => ({ path: p.path, text: "hello", from: 1, to: 1, totalLines: 1, truncated: false }),
    };
    const server = await startRpcServer({ socketPath: tempSocket(), handlers, maxRunning: 1, deadlineMs: 300 });
    servers.push(server);
    const a = await CortexClient.connect(server.socketPath, { timeoutMs: 10_000 });
    const b = await CortexClient.connect(server.socketPath, { timeoutMs: 10_000 });
    try {
      // Two stuck requests on one slot, then a quick one from another client: all three are answered.
      const stuck = [a.call("memory.search", { query: "fifo-1" }), a.call("memory.search", { query: "fifo-2" })];
      const quick = b.call("memory.get", { path: "MEMORY.md" });
      for (const s of stuck) {
        const err = await s.then(
          () => null,
          (e: unknown) => e as { code?: number; message: string },
        );
        expect(err?.code).toBe(ErrorCodes.RequestTimeout);
        expect(err?.message).toMatch(/memory\.search did not finish within 300 ms/);
      }
      expect((await quick).text).toBe("hello");
      expect(aborted.sort()).toEqual(["fifo-1", "fifo-2"]);
      expect((await b.call("daemon.ping", {})).pong).toBe(true);
    } finally {
      a.close();
      b.close();
    }
  }, 20_000);
});
