import { spawn } from "node:child_process";
import { createConnection, type Socket } from "node:net";
import { procMemMb } from "./daemon-proc.js";

/**
 * Hostile and careless clients, as an attacker would write them, against a running daemon; shared by
 * `npm run bench -- abuse` and test/hostile-clients.test.ts. While an attack runs, another client
 * pings the daemon every 50 ms (the longest wait is what a real client would notice) and the daemon's
 * RSS is sampled; every response line the attacker receives is checked to be a JSON-RPC response.
 */

export interface AttackTarget {
  socket: string;
  pid: number;
}

export interface AttackOutcome {
  /** Requests sent (batch items counted one by one). */
  sent: number;
  /** Responses received (batch items counted one by one). */
  answered: number;
  /** Responses that were errors, by code. */
  errors: Record<string, number>;
  /** Response lines that were not well-formed JSON-RPC responses. */
  malformed: number;
  /** Whether the attacker expected an answer to everything it sent (false for clients that leave). */
  expectsAll: boolean;
}

export interface AttackResult extends AttackOutcome {
  name: string;
  ms: number;
  peakRssMb: number;
  /** Longest time another client's daemon.ping waited while the attack ran (and until it was over). */
  maxPingMs: number;
  pings: number;
  /** Pings that got no answer within 30 s. */
  pingFailures: number;
  allAnswered: boolean;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** One raw NDJSON connection that counts and checks what comes back. */
export class RawClient {
  readonly socket: Socket;
  answered = 0;
  malformed = 0;
  readonly errors: Record<string, number> = Object.create(null) as Record<string, number>;
  private buf = "";
  private waiters: { n: number; resolve: () => void }[] = [];
  closed = false;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => this.onData(d));
    socket.on("error", () => {});
    socket.on("close", () => {
      this.closed = true;
      for (const w of this.waiters.splice(0)) w.resolve();
    });
  }

  static connect(path: string): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const s = createConnection({ path });
      s.once("error", reject);
      s.once("connect", () => {
        s.removeListener("error", reject);
        resolve(new RawClient(s));
      });
    });
  }

  send(text: string): boolean {
    return this.socket.write(text);
  }

  /** Resolves once n responses in all have arrived (or the connection closed). */
  until(n: number): Promise<void> {
    if (this.answered >= n || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }

  private onData(d: string): void {
    this.buf += d;
    let nl: number;
    while ((nl = this.buf.indexOf("\n")) !== -1) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      this.take(line);
    }
    this.waiters = this.waiters.filter((w) => {
      if (this.answered < w.n) return true;
      w.resolve();
      return false;
    });
  }

  private take(line: string): void {
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      this.malformed++;
      return;
    }
    for (const r of Array.isArray(v) ? v : [v]) {
      if (!isResponse(r)) {
        this.malformed++;
        continue;
      }
      this.answered++;
      if (r.error) this.errors[String(r.error.code)] = (this.errors[String(r.error.code)] ?? 0) + 1;
    }
  }
}

function isResponse(r: unknown): r is { id: unknown; result?: unknown; error?: { code: number; message: string } } {
  if (typeof r !== "object" || r === null) return false;
  const o = r as Record<string, unknown>;
  if (o.jsonrpc !== "2.0" || !("id" in o)) return false;
  if ("result" in o) return !("error" in o);
  const e = o.error as Record<string, unknown> | undefined;
  return typeof e === "object" && e !== null && Number.isInteger(e.code) && typeof e.message === "string";
}

export const rpcLine = (id: number | string | null, method: string, params?: unknown): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    ...(id === null ? {} : { id }),
    method,
    ...(params === undefined ? {} : { params }),
  }) + "\n";

export const batchLine = (calls: { method: string; params?: unknown }[], firstId = 1): string =>
  JSON.stringify(
    calls.map((c, i) => ({
      jsonrpc: "2.0",
      id: firstId + i,
      method: c.method,
      ...(c.params === undefined ? {} : { params: c.params }),
    })),
  ) + "\n";

/** The other client: pings every 50 ms until stdin closes, then prints {maxPing, pings, failures}. */
const PINGER = `
const net = require("net");
const s = net.createConnection({ path: process.argv[1] });
let buf = "", n = 0, max = 0, failures = 0, sentAt = 0, stop = false, timer;
const send = () => { sentAt = performance.now(); s.write(JSON.stringify({ jsonrpc: "2.0", id: ++n, method: "daemon.ping", params: {} }) + "\\n");
  timer = setTimeout(() => { failures++; finish(); }, 30000); };
const finish = () => { console.log(JSON.stringify({ maxPing: max, pings: n, failures })); process.exit(0); };
s.on("connect", () => { console.log("ready"); send(); });
s.on("error", () => { failures++; finish(); });
s.setEncoding("utf8");
s.on("data", (d) => { buf += d; let i; while ((i = buf.indexOf("\\n")) !== -1) { const line = buf.slice(0, i); buf = buf.slice(i + 1);
  clearTimeout(timer); max = Math.max(max, performance.now() - sentAt);
  try { const r = JSON.parse(line); if (!r.result || r.result.pong !== true) failures++; } catch { failures++; }
  if (stop) return finish(); setTimeout(send, 50); } });
process.stdin.on("end", () => { stop = true; });
process.stdin.resume();
`;

/** Runs one attack while another client pings and RSS is sampled; then waits until pings are quick again. */
export async function runAttack(
  name: string,
  t: AttackTarget,
  attack: (t: AttackTarget) => Promise<AttackOutcome>,
): Promise<AttackResult> {
  let peakRss = procMemMb(t.pid).rss;
  const rssTimer = setInterval(() => {
    const m = procMemMb(t.pid).rss;
    if (m > peakRss) peakRss = m;
  }, 50);
  // The other client is its own process, so the attacker's own work (parsing large answers) is not in its figures.
  const pinger = spawn(process.execPath, ["-e", PINGER, t.socket], { stdio: ["pipe", "pipe", "inherit"] });
  let report = "";
  pinger.stdout.setEncoding("utf8").on("data", (x: string) => (report += x));
  const pingerDone = new Promise<void>((r) => pinger.once("exit", () => r()));
  await new Promise<void>((r) => pinger.stdout.once("data", () => r())); // "ready"
  const t0 = performance.now();
  let out: AttackOutcome;
  try {
    out = await attack(t);
  } finally {
    await sleep(200); // a last ping or two after the attacker is done
    pinger.stdin.end();
    await pingerDone;
    clearInterval(rssTimer);
  }
  const last = report.trim().split("\n").pop() ?? "{}";
  const {
    maxPing = Infinity,
    pings = 0,
    failures = 1,
  } = JSON.parse(last.startsWith("{") ? last : "{}") as { maxPing?: number; pings?: number; failures?: number };
  peakRss = Math.max(peakRss, procMemMb(t.pid).rss);
  return {
    name,
    ms: Math.round(performance.now() - t0),
    peakRssMb: peakRss,
    maxPingMs: Math.round(maxPing),
    pings,
    pingFailures: failures,
    ...out,
    allAnswered: out.malformed === 0 && (!out.expectsAll || out.answered === out.sent),
  };
}

/** Every name on Object.prototype (and `__proto__`), the ids that once poisoned the session map. */
export const PROTOTYPE_NAMES = [...new Set(["__proto__", ...Object.getOwnPropertyNames(Object.prototype)])];

/** Calls that take a client-chosen id or name, with `name` in it. */
export function callsWithName(name: string): { method: string; params: unknown }[] {
  return [
    {
      method: "session.touch",
      params: { session_id: name, prompt: "fixing the deploy pipeline for the team", cwd: "/tmp" },
    },
    { method: "session.start", params: { session_id: name, source: name, cwd: "/tmp", maxChars: 100 } },
    {
      method: "memory.capture",
      params: {
        session_id: name,
        messages: [
          { role: "user", content: `remember the ${name} decision for the release` },
          { role: "assistant", content: "Noted the decision." },
        ],
      },
    },
    { method: "session.checkpoint", params: { session_id: name } },
    { method: "session.sleep", params: { session_id: name, reason: name, checkpoint: false } },
    { method: "memory.save", params: { text: `a note tagged ${name} about the ${name} release`, tags: [name] } },
    { method: "memory.search", params: { query: name, limit: 3 } },
    { method: "memory.search", params: { query: "release", workspace: name } },
    { method: "memory.recall", params: { query: name, workspace: name } },
    { method: "memory.get", params: { path: name } },
    { method: "index.status", params: { workspace: name } },
    { method: "promote.list", params: { workspace: name } },
    { method: "consolidate.report", params: { workspace: name } },
    { method: "index.sync", params: { path: name } },
  ];
}

/** Each prototype name through every method that takes an id or name, as requests and as notifications (as hooks send them). */
export async function prototypeKeys(t: AttackTarget): Promise<AttackOutcome> {
  const c = await RawClient.connect(t.socket);
  let sent = 0;
  for (const name of PROTOTYPE_NAMES) {
    for (const call of callsWithName(name)) {
      c.send(rpcLine(null, call.method, call.params)); // notification: nothing comes back
      c.send(rpcLine(++sent, call.method, call.params));
    }
  }
  await c.until(sent);
  c.socket.destroy();
  return { sent, answered: c.answered, errors: c.errors, malformed: c.malformed, expectsAll: true };
}

/** One batch of `n` memory.get calls for the same (large) file. */
export function batchOfGets(path: string, n: number) {
  return async (t: AttackTarget): Promise<AttackOutcome> => {
    const c = await RawClient.connect(t.socket);
    c.send(
      batchLine(
        Array.from({ length: n }, (_, i) => ({
          method: "memory.get",
          params: { path, from: 1 + ((i * 97) % 1000), lines: 10_000 },
        })),
      ),
    );
    await c.until(n);
    c.socket.destroy();
    return { sent: n, answered: c.answered, errors: c.errors, malformed: c.malformed, expectsAll: true };
  };
}

/** One batch of `n` memory.search calls with limit 200 (`lines` such batches on one connection). */
export function batchOfSearches(query: string, n: number, lines = 1) {
  return async (t: AttackTarget): Promise<AttackOutcome> => {
    const c = await RawClient.connect(t.socket);
    const line = batchLine(
      Array.from({ length: n }, () => ({ method: "memory.search", params: { query, limit: 200 } })),
    );
    for (let i = 0; i < lines; i++) c.send(line);
    await c.until(n * lines);
    c.socket.destroy();
    return { sent: n * lines, answered: c.answered, errors: c.errors, malformed: c.malformed, expectsAll: true };
  };
}

/** One batch over the batch cap: a single error for the whole line is the expected answer. */
export function oversizedBatch(query: string, n: number) {
  return async (t: AttackTarget): Promise<AttackOutcome> => {
    const c = await RawClient.connect(t.socket);
    c.send(batchLine(Array.from({ length: n }, () => ({ method: "memory.search", params: { query, limit: 200 } }))));
    await c.until(1);
    c.socket.destroy();
    return { sent: 1, answered: c.answered, errors: c.errors, malformed: c.malformed, expectsAll: true };
  };
}

/** `clients` connections that each write `perClient` searches without reading, then close. */
export function writeAndLeave(query: string, clients: number, perClient: number) {
  return async (t: AttackTarget): Promise<AttackOutcome> => {
    const payload = Array.from({ length: perClient }, (_, i) =>
      rpcLine(i + 1, "memory.search", { query: `${query} ${i % 17}`, limit: 200 }),
    ).join("");
    const conns = await Promise.all(Array.from({ length: clients }, () => RawClient.connect(t.socket)));
    for (const c of conns) {
      c.socket.pause(); // never reads
      c.send(payload);
    }
    await sleep(300);
    for (const c of conns) c.socket.destroy(); // exits without reading
    // The daemon should drop their pending work: a fresh client is answered at once.
    const after = await RawClient.connect(t.socket);
    after.send(rpcLine(1, "memory.search", { query, limit: 5 }));
    await after.until(1);
    after.socket.destroy();
    return { sent: 1, answered: after.answered, errors: after.errors, malformed: after.malformed, expectsAll: true };
  };
}

export function summarize(results: AttackResult[]): string {
  const rows = [["attack", "time", "peak RSS", "longest ping", "pings", "answered", "errors"]];
  for (const r of results) {
    rows.push([
      r.name,
      `${(r.ms / 1000).toFixed(1)} s`,
      `${r.peakRssMb} MB`,
      `${r.maxPingMs} ms${r.pingFailures ? ` (${r.pingFailures} failed)` : ""}`,
      String(r.pings),
      r.expectsAll ? `${r.answered}/${r.sent}${r.allAnswered ? " all" : " NOT ALL"}` : `${r.answered} (client left)`,
      Object.entries(r.errors)
        .map(([k, v]) => `${k}×${v}`)
        .join(" ") || "-",
    ]);
  }
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(w[i]!)).join("  ")).join("\n");
}
