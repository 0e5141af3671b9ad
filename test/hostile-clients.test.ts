import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  PROTOTYPE_NAMES,
  RawClient,
  batchLine,
  batchOfGets,
  batchOfSearches,
  callsWithName,
  prototypeKeys,
  runAttack,
  writeAndLeave,
  type AttackResult,
} from "../scripts/bench/abuse-attacks.js";
import { ErrorCodes } from "../src/rpc/protocol.js";
import { startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

/**
 * Hostile and careless clients against a real daemon (issue #14): while each attack runs, another
 * client's daemon.ping is answered, the daemon's RSS stays under 400 MB, and every answer is a
 * JSON-RPC result or error. Sizes are CI-sized (a 5 MB daily log, a few hundred requests). The ping
 * bound here is loose (a loaded 2-core CI box); the ≤ 500 ms figures are `npm run bench -- abuse`'s.
 */

const PING_BOUND_MS = 2000;
const RSS_BOUND_MB = 400;

/** A daily log of about 5 MB (for memory.get). */
function bigLog(): string {
  const lines = ["# 2026-01-01", ""];
  for (let i = 0; i < 48_000; i++)
    lines.push(`- ${i}: service ${i % 97} was deployed after the heron review, notes ${"x".repeat(i % 13)}`);
  return lines.join("\n") + "\n";
}

/** 300 small topic files that all mention kingfishers: a search with limit 200 has 200 hits. */
function topicFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 300; i++)
    files[`memory/topics/k-${i}.md`] =
      `# Topic ${i}\n\n- kingfisher sighting ${i} at pond ${i % 23}, ${"blue ".repeat(1 + (i % 5))}wings\n`;
  return files;
}

let d: TestDaemon;
let root: string;
beforeAll(async () => {
  root = tempDir();
  writeFiles(root, {
    "MEMORY.md": "# Memory\n\n- the release pipeline is owned by the heron team\n",
    "memory/2026-01-01.md": bigLog(),
    ...topicFiles(),
  });
  d = await startDaemon({ config: { workspaces: [{ path: root }], daemon: { debounceMs: 50, settleMs: 20 } } });
  await waitUntil(
    async () => (await d.call("cortex.status", {})).workspaces.every((w) => w.lastSync !== null && w.dirty === 0),
    120_000,
  );
}, 150_000);
afterAll(async () => {
  await d?.stop();
});

const target = () => ({ socket: d.socket, pid: d.child.pid! });

function expectHeld(r: AttackResult): void {
  const summary = JSON.stringify(r);
  expect(r.pingFailures, summary).toBe(0);
  expect(r.pings, summary).toBeGreaterThan(0);
  expect(r.maxPingMs, summary).toBeLessThanOrEqual(PING_BOUND_MS);
  expect(r.peakRssMb, summary).toBeLessThan(RSS_BOUND_MB);
  expect(r.malformed, summary).toBe(0);
  expect(r.allAnswered, summary).toBe(true);
}

describe("client-chosen ids and names never touch prototypes", () => {
  it("every Object.prototype name through every method taking an id or name (requests and notifications): later calls are unaffected, and the ids are ordinary sessions", async () => {
    const r = await runAttack("prototype ids", target(), prototypeKeys);
    expectHeld(r);
    // Later calls on a fresh connection: no "-32602 unknown keys" from polluted prototypes.
    expect((await d.call("daemon.ping", {})).pong).toBe(true);
    const st = await d.call("cortex.status", {});
    expect(st.workspaces).toHaveLength(1);
    expect(
      await d.call("session.touch", { session_id: "a-normal-session", prompt: "working on the release notes today" }),
    ).toEqual({ ok: true });
    const saved = await d.call("memory.save", {
      text: "an ordinary note after the attack about kingfishers",
      tags: ["birds"],
    });
    expect(saved.stored).toBe(true);
    const c = await RawClient.connect(d.socket);
    for (const call of callsWithName("ordinary-id")) c.send(batchLine([call]));
    await c.until(callsWithName("ordinary-id").length);
    c.socket.destroy();
    expect(c.errors[String(ErrorCodes.InvalidParams)] ?? 0).toBe(0);
    // "constructor", "toString", "__proto__"… were kept as sessions like any other id.
    const stateDir = join(d.home, ".local/share/cortexd", "state");
    const file = readdirSync(stateDir).find((f) => f.endsWith(".json"))!;
    const sessions = Object.keys(JSON.parse(readFileSync(join(stateDir, file), "utf8")).sessions as object);
    for (const name of PROTOTYPE_NAMES) expect(sessions, name).toContain(name);
    expect(({} as Record<string, unknown>).lastActivity).toBeUndefined();
  }, 60_000);
});

describe("one batch line cannot fan out without bound", () => {
  it("a batch of 400 memory.get of a 5 MB daily log", async () => {
    const r = await runAttack("batch get", target(), batchOfGets("memory/2026-01-01.md", 400));
    expectHeld(r);
    expect(r.errors).toEqual({});
  }, 60_000);

  it("a batch of 300 memory.search with limit 200: answered (the batch's responses stop at the size cap with -32007), others keep being served", async () => {
    const r = await runAttack("batch search", target(), batchOfSearches("kingfisher pond", 300));
    expectHeld(r);
    for (const code of Object.keys(r.errors)) expect(Number(code)).toBe(ErrorCodes.ResponseTooLarge);
  }, 60_000);

  it("a batch of 5,000 memory.search is refused at once with an error naming the cap", async () => {
    const c = await RawClient.connect(d.socket);
    const lines: string[] = [];
    c.socket.on("data", (x: string) => lines.push(x));
    c.send(
      batchLine(
        Array.from({ length: 5000 }, () => ({ method: "memory.search", params: { query: "release", limit: 200 } })),
      ),
    );
    await waitUntil(() => lines.join("").includes("\n"), 10_000);
    const res = JSON.parse(lines.join(""));
    expect(res.error.code).toBe(ErrorCodes.InvalidRequest);
    expect(res.error.message).toMatch(/batch too large \(5000 requests > 1000\)/);
    c.socket.destroy();
  });
});

describe("requests of clients that left do not keep running", () => {
  it("20 clients each write 1,000 searches without reading and leave: others are served at once, their pending work is dropped", async () => {
    const r = await runAttack("write and leave", target(), writeAndLeave("kingfisher pond", 20, 1000));
    expectHeld(r);
  }, 60_000);

  it("one client with a batch of 1,000 searches leaves: its pending work is dropped", async () => {
    const r = await runAttack("batch and leave", target(), async (t) => {
      const c = await RawClient.connect(t.socket);
      c.send(
        batchLine(
          Array.from({ length: 1000 }, (_, i) => ({
            method: "memory.search",
            params: { query: `kingfisher ${i}`, limit: 200 },
          })),
        ),
      );
      await new Promise((res) => setTimeout(res, 200));
      c.socket.destroy();
      const after = await RawClient.connect(t.socket);
      after.send(batchLine([{ method: "memory.search", params: { query: "heron", limit: 3 } }]));
      await after.until(1);
      after.socket.destroy();
      return { sent: 1, answered: after.answered, errors: after.errors, malformed: after.malformed, expectsAll: true };
    });
    expectHeld(r);
  }, 60_000);
});
