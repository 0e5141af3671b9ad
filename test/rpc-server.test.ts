import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { CortexClient, DaemonUnavailableError, RpcError, probeDaemon, withClient } from "../src/client/client.js";
import { ErrorCodes, MethodParams, type MethodName } from "../src/rpc/protocol.js";
import { startRpcServer, type MethodHandlers, type RpcServer, type RpcServerOptions } from "../src/rpc/server.js";
import { prepareSocketDir } from "../src/rpc/socket-path.js";
import { afterAnswer } from "../src/rpc/dispatch.js";
import { connectNdjson } from "./helpers/socket.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempSocket(): string {
  const d = mkdtempSync(join(tmpdir(), "cxrpc-"));
  dirs.push(d);
  const sock = join(d, "run", "cortexd.sock");
  prepareSocketDir(sock);
  return sock;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const handlers: MethodHandlers = {
  "daemon.ping": () => ({ pong: true, version: "test", pid: process.pid, uptimeMs: 1 }),
  "memory.search": async (p, ctx) => {
    if (p.query === "boom") throw new Error("kaboom");
    if (p.query === "refuse") throw new RpcError(ErrorCodes.PathRefused, "outside every workspace", { path: "/etc" });
    const m = /^sleep:(\d+)$/.exec(p.query);
    if (m) await sleep(Number(m[1]));
    return { results: [], mode: "keyword", tookMs: ctx.connectionId, fallback: p.query };
  },
  "memory.get": (p) => ({ path: p.path, text: "hello", from: p.from ?? 1, to: 1, totalLines: 1, truncated: false }),
  "index.status": () => ({ workspaces: [] }),
  "daemon.shutdown": () => ({ ok: true }),
};

const servers: RpcServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function serve(extra: Partial<RpcServerOptions> = {}): Promise<RpcServer> {
  const s = await startRpcServer({ socketPath: tempSocket(), handlers, ...extra });
  servers.push(s);
  return s;
}

async function waitClosed(c: CortexClient): Promise<void> {
  for (let i = 0; i < 100 && !c.closed; i++) await sleep(10);
  expect(c.closed).toBe(true);
}
const req = (id: unknown, method: string, params?: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n";

describe("rpc server + client", () => {
  it("ping roundtrip; socket 0600 in a 0700 dir", async () => {
    const s = await serve();
    const ping = await withClient(s.socketPath, (c) => c.call("daemon.ping"));
    expect(ping).toMatchObject({ pong: true, version: "test", pid: process.pid });
    expect(statSync(s.socketPath).mode & 0o777).toBe(0o600);
    expect(statSync(join(s.socketPath, "..")).mode & 0o777).toBe(0o700);
    expect(s.stats()).toEqual({ requests: 1, errors: 0 });
  });

  it("concurrent calls on one connection resolve to their own results", async () => {
    const s = await serve();
    const c = await CortexClient.connect(s.socketPath);
    const queries = Array.from({ length: 40 }, (_, i) => `sleep:${(i * 7) % 25}`);
    const res = await Promise.all(queries.map((q) => c.call("memory.search", { query: q })));
    expect(res.map((r) => r.fallback)).toEqual(queries);
    expect(new Set(res.map((r) => r.tookMs)).size).toBe(1); // same connection id
    c.close();
  });

  it("hundreds of pipelined requests in one write are all answered (beyond the per-connection in-flight cap)", async () => {
    const s = await serve();
    const r = await connectNdjson(s.socketPath);
    r.send(Array.from({ length: 300 }, (_, i) => req(i, "memory.search", { query: `sleep:${i % 3}` })).join(""));
    const ids = new Set<number>();
    for (let i = 0; i < 300; i++) ids.add((await r.next()).id);
    expect(ids.size).toBe(300);
    r.socket.destroy();
  });

  it("work a handler leaves for after its answer has run when the client has the answer; its failure costs no answer", async () => {
    const done: string[] = [];
    const s = await serve({
      handlers: {
        ...handlers,
        "memory.get": (p, ctx) => {
          afterAnswer(ctx, () => {
            if (p.path === "fail") throw new Error("the audit disk is full");
            done.push(p.path);
          });
          return { path: p.path, text: "hello", from: 1, to: 1, totalLines: 1, truncated: false };
        },
      },
    });
    const c = await CortexClient.connect(s.socketPath);
    expect((await c.call("memory.get", { path: "a.md" })).text).toBe("hello");
    expect(done).toEqual(["a.md"]);
    expect((await c.call("memory.get", { path: "fail" })).text).toBe("hello");
    expect((await c.call("memory.get", { path: "b.md" })).text).toBe("hello");
    expect(done).toEqual(["a.md", "b.md"]);
    c.close();
  });

  it("8 clients in parallel", async () => {
    const s = await serve();
    const res = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        withClient(s.socketPath, async (c) => {
          const [a, b] = await Promise.all([
            c.call("memory.search", { query: `q${i}` }),
            c.call("memory.get", { path: `p${i}` }),
          ]);
          return [a.fallback, b.path, a.tookMs];
        }),
      ),
    );
    expect(res.map((r) => r.slice(0, 2))).toEqual(Array.from({ length: 8 }, (_, i) => [`q${i}`, `p${i}`]));
    expect(new Set(res.map((r) => r[2])).size).toBe(8);
  });

  it("invalid params → -32602 naming the field", async () => {
    const s = await serve();
    const c = await CortexClient.connect(s.socketPath);
    const err1 = await c.call("memory.search", { query: 5 } as never).catch((e: unknown) => e);
    expect(err1).toBeInstanceOf(RpcError);
    expect((err1 as RpcError).code).toBe(ErrorCodes.InvalidParams);
    expect((err1 as RpcError).message).toBe("invalid params: query: expected string, received number");
    const err2 = (await c
      .call("memory.search", { query: "x", bogus: 1 } as never)
      .catch((e: unknown) => e)) as RpcError;
    expect(err2.code).toBe(-32602);
    expect(err2.message).toContain('unknown key "bogus"');
    const err3 = (await c
      .call("memory.search", { query: "x", limit: "3" } as never)
      .catch((e: unknown) => e)) as RpcError;
    expect(err3.message).toBe("invalid params: limit: expected number, received string");
    expect(err3.data).toEqual({ issues: [{ path: "limit", message: "expected number, received string" }] });
    c.close();
  });

  it("missing or null params count as {}; positional params are invalid", async () => {
    const s = await serve();
    const r = await connectNdjson(s.socketPath);
    r.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "daemon.ping" }) + "\n");
    expect((await r.next()).result.pong).toBe(true);
    r.send(req(2, "daemon.ping", null));
    expect((await r.next()).result.pong).toBe(true);
    r.send(req(3, "memory.search", ["x"]));
    expect((await r.next()).error.code).toBe(-32602);
    r.socket.destroy();
  });

  it("unknown method → -32601; handler errors → RpcError code or -32603 with the message", async () => {
    const s = await serve();
    const c = await CortexClient.connect(s.socketPath);
    const e1 = (await c.call("nope.nope" as MethodName, {} as never).catch((e: unknown) => e)) as RpcError;
    expect(e1.code).toBe(-32601);
    // a protocol method without a handler is "not found" too
    const e2 = (await c.call("cortex.status").catch((e: unknown) => e)) as RpcError;
    expect(e2.code).toBe(-32601);
    const e3 = (await c.call("memory.search", { query: "boom" }).catch((e: unknown) => e)) as RpcError;
    expect([e3.code, e3.message]).toEqual([-32603, "kaboom"]);
    expect(JSON.stringify(e3.data ?? null)).not.toContain("at ");
    const e4 = (await c.call("memory.search", { query: "refuse" }).catch((e: unknown) => e)) as RpcError;
    expect([e4.code, e4.message, e4.data]).toEqual([
      ErrorCodes.PathRefused,
      "outside every workspace",
      { path: "/etc" },
    ]);
    c.close();
  });

  it("malformed JSON → -32700 with id null; the connection keeps serving", async () => {
    const s = await serve();
    const r = await connectNdjson(s.socketPath);
    r.send('{"jsonrpc":"2.0", "id": 1, "method": \n');
    expect(await r.next()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    r.send(req(2, "daemon.ping", {}));
    expect(await r.next()).toMatchObject({ id: 2, result: { pong: true } });
    r.socket.destroy();
  });

  it("invalid requests → -32600; notifications get no answer; batches per spec", async () => {
    const s = await serve();
    const r = await connectNdjson(s.socketPath);
    for (const bad of [
      "null",
      "42",
      '"x"',
      "[]",
      '{"jsonrpc":"1.0","id":7,"method":"daemon.ping"}',
      '{"jsonrpc":"2.0","id":{},"method":"daemon.ping"}',
      '{"jsonrpc":"2.0","id":8,"method":3}',
    ]) {
      r.send(bad + "\n");
      expect((await r.next()).error.code, bad).toBe(-32600);
    }
    r.send(JSON.stringify({ jsonrpc: "2.0", method: "daemon.ping" }) + "\n"); // notification: nothing back
    r.send(
      JSON.stringify([
        { jsonrpc: "2.0", id: "a", method: "daemon.ping" },
        { jsonrpc: "2.0", method: "daemon.ping" },
        1,
        { jsonrpc: "2.0", id: "b", method: "memory.get", params: { path: "x" } },
      ]) + "\n",
    );
    const batch = await r.next();
    expect(Array.isArray(batch)).toBe(true);
    expect(batch).toHaveLength(3);
    expect(batch.find((x: any) => x.id === "a").result.pong).toBe(true);
    expect(batch.find((x: any) => x.id === "b").result.path).toBe("x");
    expect(batch.find((x: any) => x.id === null).error.code).toBe(-32600);
    // a one-element batch still gets an array back
    r.send(JSON.stringify([{ jsonrpc: "2.0", id: 9, method: "daemon.ping" }]) + "\n");
    expect(await r.next()).toMatchObject([{ id: 9 }]);
    r.socket.destroy();
  });

  it("an unterminated last line is answered when the client half-closes", async () => {
    const s = await serve();
    const r = await connectNdjson(s.socketPath);
    r.socket.end(req(1, "daemon.ping").trimEnd());
    expect((await r.next()).result.pong).toBe(true);
    await r.closed;
  });

  it("oversized line → -32005 and that connection closes; others keep working", async () => {
    const s = await serve({ maxRequestBytes: 4096 });
    const other = await CortexClient.connect(s.socketPath);
    const r = await connectNdjson(s.socketPath);
    r.send(req(1, "memory.search", { query: "x".repeat(10_000) }));
    const res = await r.next();
    expect(res.id).toBeNull();
    expect(res.error.code).toBe(ErrorCodes.RequestTooLarge);
    expect(res.error.message).toMatch(/^request too large \(\d+ bytes > 4096\)$/);
    await r.closed;
    expect((await other.call("daemon.ping")).pong).toBe(true);
    // The typed client surfaces the same error for its call.
    const c = await CortexClient.connect(s.socketPath);
    const e = (await c.call("memory.search", { query: "y".repeat(10_000) }).catch((x: unknown) => x)) as RpcError;
    expect(e).toBeInstanceOf(RpcError);
    expect(e.code).toBe(ErrorCodes.RequestTooLarge);
    other.close();
  });

  it("unfinished lines over the server-wide budget: the connection holding the most gets -32005 and is closed, the others stay", async () => {
    const s = await serve({ maxRequestBytes: 64 * 1024, maxBufferedBytes: 100 * 1024 });
    const small = await connectNdjson(s.socketPath);
    const big = await connectNdjson(s.socketPath);
    small.send('{"jsonrpc":"2.0","id":1,"method":"memory.search","params":{"query":"' + "a".repeat(20 * 1024));
    big.send('{"jsonrpc":"2.0","id":2,"method":"memory.search","params":{"query":"' + "b".repeat(60 * 1024));
    await sleep(50);
    const third = await connectNdjson(s.socketPath);
    third.send('{"jsonrpc":"2.0","id":3,"method":"memory.search","params":{"query":"' + "c".repeat(30 * 1024)); // 110 KB in all
    const res = await big.next();
    expect(res.error.code).toBe(ErrorCodes.RequestTooLarge);
    expect(res.error.message).toMatch(/over the server's budget/);
    await big.closed;
    small.send('"}}\n');
    third.send('"}}\n');
    expect((await small.next()).id).toBe(1);
    expect((await third.next()).id).toBe(3);
    small.socket.destroy();
    third.socket.destroy();
  });

  it("a slow client with half a line is closed after lineTimeoutMs", async () => {
    const s = await serve({ lineTimeoutMs: 150 });
    const r = await connectNdjson(s.socketPath);
    const t0 = Date.now();
    r.send('{"jsonrpc":"2.0","id":1,');
    await r.closed;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(100);
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it("trickling bytes doesn't extend the line deadline", async () => {
    const s = await serve({ lineTimeoutMs: 200 });
    const r = await connectNdjson(s.socketPath);
    const t0 = Date.now();
    const trickle = setInterval(() => r.socket.writable && r.send(" "), 30);
    r.send("{");
    await r.closed;
    clearInterval(trickle);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it("idle connections are closed after idleTimeoutMs", async () => {
    const s = await serve({ idleTimeoutMs: 150 });
    const r = await connectNdjson(s.socketPath);
    r.send(req(1, "daemon.ping"));
    await r.next();
    await r.closed;
    await sleep(20);
    expect(s.connections()).toBe(0);
  });

  it("500 idle connections don't get in the way of a normal call", async () => {
    const s = await serve({ maxConnections: 1000 });
    const idle = await Promise.all(Array.from({ length: 500 }, () => connectNdjson(s.socketPath)));
    for (const r of idle.slice(0, 100)) r.send('{"jsonrpc":"2.0",'); // some half-sent lines too
    const t0 = Date.now();
    expect((await withClient(s.socketPath, (c) => c.call("daemon.ping"))).pong).toBe(true);
    expect(Date.now() - t0).toBeLessThan(1000);
    await sleep(20);
    expect(s.connections()).toBeGreaterThanOrEqual(500);
    for (const r of idle) r.socket.destroy();
  });

  it("past maxConnections with every connection busy, a client gets -32006 and is closed", async () => {
    const s = await serve({ maxConnections: 2 });
    const a = await CortexClient.connect(s.socketPath);
    const b = await CortexClient.connect(s.socketPath);
    const slow = [a.call("memory.search", { query: "sleep:400" }), b.call("memory.search", { query: "sleep:400" })];
    await sleep(30);
    const probe = await probeDaemon(s.socketPath, 1000);
    expect(probe.up).toBe(false);
    expect(probe.up === false && probe.detail).toContain("-32006");
    expect((await Promise.all(slow)).map((r) => r.fallback)).toEqual(["sleep:400", "sleep:400"]); // the busy ones were kept
    a.close();
    b.close();
  });

  it("past maxConnections, the longest-idle connection makes room (idle and stalled clients cannot lock others out)", async () => {
    const s = await serve({ maxConnections: 3 });
    const oldest = await connectNdjson(s.socketPath);
    oldest.send('{"jsonrpc":"2.0","id":1,'); // stalled mid-line
    await sleep(10);
    const mid = await CortexClient.connect(s.socketPath);
    await mid.call("daemon.ping");
    await sleep(10);
    const newest = await CortexClient.connect(s.socketPath);
    await newest.call("daemon.ping");
    const third = await CortexClient.connect(s.socketPath);
    expect((await third.call("daemon.ping")).pong).toBe(true);
    await oldest.closed; // it went first
    expect(mid.closed).toBe(false);
    // then the next-longest idle one (mid) for the next newcomer
    expect((await withClient(s.socketPath, (c) => c.call("daemon.ping"))).pong).toBe(true);
    await waitClosed(mid);
    expect((await newest.call("daemon.ping")).pong).toBe(true);
    expect((await third.call("daemon.ping")).pong).toBe(true);
    newest.close();
    third.close();
  });

  it("close() lets in-flight requests finish, refuses new ones, and unlinks the socket", async () => {
    const s = await startRpcServer({ socketPath: tempSocket(), handlers });
    const c = await CortexClient.connect(s.socketPath);
    const slow = c.call("memory.search", { query: "sleep:150" });
    await sleep(30);
    const closing = s.close();
    const late = await c.call("daemon.ping").catch((e: unknown) => e);
    expect((late as RpcError).code).toBe(ErrorCodes.ShuttingDown);
    expect((await slow).fallback).toBe("sleep:150");
    await closing;
    expect(() => statSync(s.socketPath)).toThrow();
    const e = await c.call("daemon.ping").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DaemonUnavailableError);
    expect((e as DaemonUnavailableError).reason).toBe("closed");
  });

  it("client call timeout → DaemonUnavailableError('timeout'); the connection stays usable", async () => {
    const s = await serve();
    const c = await CortexClient.connect(s.socketPath, { timeoutMs: 1000 });
    const e = (await c
      .call("memory.search", { query: "sleep:300" }, { timeoutMs: 50 })
      .catch((x: unknown) => x)) as DaemonUnavailableError;
    expect(e).toBeInstanceOf(DaemonUnavailableError);
    expect(e.reason).toBe("timeout");
    expect((await c.call("daemon.ping")).pong).toBe(true);
    c.close();
  });

  it("probeDaemon: up, no-socket, stale-socket", async () => {
    const s = await serve();
    const up = await probeDaemon(s.socketPath, 1000);
    expect(up.up && up.ping.pong).toBe(true);

    const missing = join(s.socketPath, "..", "nothing.sock");
    expect(await probeDaemon(missing, 500)).toMatchObject({ up: false, reason: "no-socket" });

    const stalePath = join(s.socketPath, "..", "stale.sock");
    await leaveStaleSocket(stalePath);
    expect(await probeDaemon(stalePath, 500)).toMatchObject({ up: false, reason: "stale-socket" });
  });
});

describe("rpc fuzz", () => {
  it("random params for every method always get a JSON-RPC response and never crash the server", async () => {
    const s = await serve();
    const r = await connectNdjson(s.socketPath);
    const methods = [...Object.keys(MethodParams), "nope", ""];
    let id = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...methods), fc.oneof(fc.jsonValue(), fc.object()), async (method, params) => {
        const myId = ++id;
        r.send(JSON.stringify({ jsonrpc: "2.0", id: myId, method, params }) + "\n");
        const res = await r.next();
        expect(res.jsonrpc).toBe("2.0");
        expect(res.id).toBe(myId);
        expect("result" in res !== "error" in res).toBe(true);
        if (res.error) expect(typeof res.error.code).toBe("number");
      }),
      { numRuns: 300 },
    );
    // raw garbage lines too
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), async (text) => {
        const line = text.replace(/[\r\n]/g, " ");
        if (line.trim() === "") return;
        r.send(line + "\n");
        const res = await r.next();
        expect(Array.isArray(res) ? res[0].jsonrpc : res.jsonrpc).toBe("2.0");
      }),
      { numRuns: 200 },
    );
    r.send(req("last", "daemon.ping"));
    expect((await r.next()).id).toBe("last");
    expect((await withClient(s.socketPath, (c) => c.call("daemon.ping"))).pong).toBe(true);
    r.socket.destroy();
  });
});

/** A socket file nobody listens on: a child process binds it and is SIGKILLed. */
async function leaveStaleSocket(path: string): Promise<void> {
  const child = spawn(
    process.execPath,
    ["-e", "require('net').createServer().listen(process.argv[1], () => console.log('ready'))", path],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  await new Promise<void>((r) => child.stdout.once("data", () => r()));
  child.kill("SIGKILL");
  await new Promise<void>((r) => child.once("exit", () => r()));
  expect(statSync(path).isSocket()).toBe(true);
}
