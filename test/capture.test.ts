import { appendFileSync, copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { Capturer } from "../src/capture/capture.js";
import { groupTurns, shortSession } from "../src/capture/turns.js";
import { localDate, localTime } from "../src/memory-files/entry.js";
import { MemoryWriter } from "../src/memory-files/writer.js";
import { Sessions } from "../src/session/lifecycle.js";
import { StateStore } from "../src/session/state.js";
import { tempDir } from "./helpers/workspace.js";

export const FIXTURES = resolve(import.meta.dirname, "fixtures/claude-code");
export const SESSION = "5f0c2a9e-7b1d-4c8e-9a3f-2d6b8e1c4a70";

/** A capture stack as the daemon builds it, over a data dir (a new one = a restarted daemon). */
function stack(dataDir: string) {
  const state = StateStore.forDataDir(dataDir);
  const writer = new MemoryWriter(state);
  const capturer = new Capturer(writer, state);
  return { state, writer, capturer, sessions: new Sessions(state, writer, capturer) };
}

const line = (type: "user" | "assistant", content: unknown, timestamp: string) =>
  JSON.stringify({ type, sessionId: SESSION, message: { role: type, content }, uuid: `u-${timestamp}`, timestamp }) +
  "\n";

describe("capture from a Claude Code transcript", () => {
  it("turns substantive turns into daily-log bullets once; tool JSON, images, trivial turns and secrets never land", async () => {
    const root = tempDir();
    const data = tempDir();
    const transcript = join(tempDir(), `${SESSION}.jsonl`);
    copyFileSync(join(FIXTURES, "transcript.jsonl"), transcript);
    const ws = { root, name: "ws" };
    const { capturer } = stack(data);

    const r = await capturer.capture(ws, { session_id: SESSION, transcript_path: transcript });
    const day = localDate(Date.parse("2026-11-27T09:14:41.870Z"));
    expect(r).toMatchObject({
      stored: true,
      entries: 3,
      skipped: 1,
      duplicates: 0,
      redactions: 1,
      path: `memory/${day}.md`,
      startLine: 3,
      endLine: 5,
    });
    const log = readFileSync(join(root, "memory", `${day}.md`), "utf8");
    const lines = log.split("\n");
    expect(lines[0]).toBe(`# ${day}`);
    expect(lines[2]).toBe(
      `- [session 5f0c2a9e ${localTime(Date.parse("2026-11-27T09:14:41.870Z"))}] User: The invoice PDF export times out for customers with more than 500 line items. Can you find out why and fix it? — ` +
        "Assistant: Found it: `renderInvoicePdf` re-queries the tax table for every line item (N+1 queries), so 500 items means 500 database round trips. " +
        "I batched the lookups into one query keyed by tax code and added a test with 2,000 line items; the export now takes 1.4 s instead of timing out at 30 s. <!-- visibility: private -->",
    );
    expect(lines[3]).toContain("User: This is the error the customer sees in the dashboard");
    expect(lines[4]).toContain("AWS_SECRET_ACCESS_KEY=[REDACTED:secret]");
    for (const bad of [
      "toolu_",
      "tool_result",
      "tool_use",
      "iVBORw0KGgo",
      "[image]",
      "thinking",
      "wJalrXUtnFEMI",
      "thanks!",
      "Caveat:",
      "/clear",
      "command-name",
    ]) {
      expect(log).not.toContain(bad);
    }

    // Nothing new → nothing written.
    expect(await capturer.capture(ws, { session_id: SESSION, transcript_path: transcript })).toMatchObject({
      stored: false,
      entries: 0,
      messages: 0,
    });

    // A new turn, its reply still being written (no newline yet): the question waits for its answer.
    appendFileSync(
      transcript,
      line(
        "user",
        "Which regions does the signed URL work from? Our EU customers reported 403s.",
        "2026-11-27T10:00:00.000Z",
      ),
    );
    appendFileSync(
      transcript,
      line(
        "assistant",
        [
          {
            type: "text",
            text: "Signed URLs are region-agnostic; the 403s came from the bucket policy that only allowed us-east-1 VPC endpoints. I widened it to the EU endpoint.",
          },
        ],
        "2026-11-27T10:00:09.000Z",
      ).trimEnd(),
    );
    expect(await capturer.capture(ws, { session_id: SESSION, transcript_path: transcript })).toMatchObject({
      stored: false,
      entries: 0,
    });
    appendFileSync(transcript, "\n");

    // A restarted daemon (new state store on the same data dir) captures only the new turn.
    const again = await stack(data).capturer.capture(ws, { session_id: SESSION, transcript_path: transcript });
    expect(again).toMatchObject({ stored: true, entries: 1, startLine: 6, endLine: 6 });
    const after = readFileSync(join(root, "memory", `${day}.md`), "utf8").split("\n");
    expect(after[5]).toMatch(
      /User: Which regions does the signed URL work from\? .* — Assistant: Signed URLs are region-agnostic/,
    );
    expect(after.filter((l) => l.startsWith("- ")).length).toBe(4);
  });

  it("realigns on the last captured message when the transcript is rewritten", async () => {
    const root = tempDir();
    const transcript = join(tempDir(), "s.jsonl");
    const ws = { root, name: "ws" };
    const { capturer } = stack(tempDir());
    const t1 = line(
      "user",
      "Please rename the staging cluster to billing-stg-2 everywhere in the Terraform config.",
      "2026-11-27T11:00:00.000Z",
    );
    const a1 = line(
      "assistant",
      "Renamed billing-stg to billing-stg-2 in main.tf, variables.tf and the CI workflow; plan shows no destroys.",
      "2026-11-27T11:01:00.000Z",
    );
    writeFileSync(transcript, t1 + a1);
    expect((await capturer.capture(ws, { session_id: "s", transcript_path: transcript })).entries).toBe(1);
    // An editor or tool rewrote the file: a header line in front, then the same history plus a new turn.
    const t2 = line(
      "user",
      "Now bump the Postgres version of that cluster from 14 to 16 and note the downtime window.",
      "2026-11-27T11:05:00.000Z",
    );
    const a2 = line(
      "assistant",
      "Bumped engine_version to 16; the upgrade needs about 10 minutes of downtime, scheduled Sunday 02:00 UTC.",
      "2026-11-27T11:06:00.000Z",
    );
    writeFileSync(
      transcript,
      JSON.stringify({ type: "summary", summary: "Terraform work" }) + "\n" + t1 + a1 + t2 + a2,
    );
    const r = await capturer.capture(ws, { session_id: "s", transcript_path: transcript });
    expect(r).toMatchObject({ entries: 1, duplicates: 0 });
    const log = readFileSync(join(root, "memory", `${localDate(Date.parse("2026-11-27T11:06:00.000Z"))}.md`), "utf8");
    expect(log.match(/billing-stg-2/g)).toHaveLength(2); // user + assistant text of the first turn, once
    expect(log).toContain("Bumped engine_version to 16");
  });

  it("captures a growing messages array (OpenClaw agent_end) once per message, without recalled-memory blocks", async () => {
    const root = tempDir();
    const ws = { root, name: "ws" };
    const data = tempDir();
    const history: unknown[] = [
      {
        role: "user",
        content:
          "<cortex_memories>\n[NOTE: recalled]\n- [0.90] (MEMORY.md:1-1) User prefers TypeScript\n</cortex_memories>\nSet up the new repo for the webhook relay service, please.",
      },
      {
        role: "assistant",
        content: [{ type: "toolCall", id: "c1", name: "exec", arguments: { command: "git init" } }],
      },
      { role: "toolResult", content: [{ type: "text", text: "Initialized empty Git repository" }] },
      {
        role: "assistant",
        content: [
          {
            type: "text",
            text: "Created webhook-relay with a TypeScript skeleton, eslint, vitest and a GitHub Actions workflow.",
          },
        ],
      },
    ];
    const r1 = await stack(data).capturer.capture(ws, { session_id: "agent:main:main", messages: history });
    expect(r1).toMatchObject({ stored: true, entries: 1 });
    history.push({ role: "user", content: "ok" }, { role: "assistant", content: "👍" });
    history.push({
      role: "user",
      content: "Add a retry with exponential backoff for failed deliveries, max 5 attempts.",
    });
    // No reply yet: nothing, and the question is not consumed.
    expect(await stack(data).capturer.capture(ws, { session_id: "agent:main:main", messages: history })).toMatchObject({
      stored: false,
      skipped: 1,
    });
    history.push({
      role: "assistant",
      content: "Deliveries now retry with backoff 1s, 2s, 4s, 8s, 16s, then go to the dead-letter table.",
    });
    const r3 = await stack(data).capturer.capture(ws, { session_id: "agent:main:main", messages: history });
    expect(r3).toMatchObject({ stored: true, entries: 1 });
    // A trimmed window (the plugin sends only recent messages) still lines up on the last captured one.
    history.push(
      { role: "user", content: "What did we name the dead-letter table? I need it for the dashboard query." },
      { role: "assistant", content: "It is delivery_dead_letters, in the relay schema." },
    );
    const r4 = await stack(data).capturer.capture(ws, { session_id: "agent:main:main", messages: history.slice(-4) });
    expect(r4).toMatchObject({ stored: true, entries: 1 });
    const log = readFileSync(join(root, "memory", `${localDate()}.md`), "utf8");
    const bullets = log.split("\n").filter((l) => l.startsWith("- "));
    expect(bullets).toHaveLength(3);
    expect(bullets[0]).toMatch(
      /^- \[session agent-main-main \d\d:\d\d\] User: Set up the new repo for the webhook relay service, please\. — Assistant: Created webhook-relay/,
    );
    expect(log).not.toContain("cortex_memories");
    expect(log).not.toContain("prefers TypeScript");
    expect(log).not.toContain("git init");
  });

  it("keeps distinct requests that got the same answer (a repeated reply is not a repeated turn)", async () => {
    const root = tempDir();
    const ws = { root, name: "ws" };
    const { capturer } = stack(tempDir());
    const reply = "Memory says the payments deploy freeze starts on December 18 and lasts two weeks.";
    const notes = [
      "Note one: the CDN cache TTL for images moves to 24 hours.",
      "Note four: the mobile release train moves from weekly to fortnightly.",
    ];
    const history: unknown[] = [];
    for (const note of notes) {
      history.push({ role: "user", content: note }, { role: "assistant", content: reply });
      expect(await capturer.capture(ws, { session_id: "agent:main:main", messages: history })).toMatchObject({
        stored: true,
        entries: 1,
        duplicates: 0,
      });
    }
    // The same request with the same answer again (a re-sent turn from another session) is still one.
    const again = await capturer.capture(ws, {
      session_id: "agent:main:other",
      messages: [
        { role: "user", content: notes[1] },
        { role: "assistant", content: reply },
      ],
    });
    expect(again).toMatchObject({ stored: false, duplicates: 1 });
    const log = readFileSync(join(root, "memory", `${localDate()}.md`), "utf8");
    for (const note of notes) expect(log).toContain(note);
  });

  it("groups turns and leaves an unanswered question for later", () => {
    const m = (role: "user" | "assistant", text: string, line: number) => ({ role, text, line });
    const g = groupTurns([
      m("assistant", "hello", 1),
      m("user", "a", 2),
      m("user", "b", 3),
      m("assistant", "c", 4),
      m("user", "d", 5),
    ]);
    expect(g.complete).toBe(4);
    expect(g.turns.map((t) => [t.user.length, t.assistant.length])).toEqual([
      [0, 1],
      [2, 1],
    ]);
    expect(shortSession(SESSION)).toBe("5f0c2a9e");
    expect(shortSession("main")).toBe("main");
  });
});

describe("session lifecycle", () => {
  it("recovery note after an unclean end (once), none after sleep; checkpoint writes goal and focus", async () => {
    const root = tempDir();
    const data = tempDir();
    const ws = { root, name: "ws" };
    const transcript = join(tempDir(), `${SESSION}.jsonl`);
    copyFileSync(join(FIXTURES, "transcript.jsonl"), transcript);
    const a = stack(data);
    await a.sessions.start(ws, { session_id: SESSION, source: "startup", cwd: "/home/dev/projects/billing" });
    a.sessions.touch(ws, {
      session_id: SESSION,
      prompt: "Make the invoice export upload to S3 and return a signed URL",
    });
    await a.capturer.capture(ws, { session_id: SESSION, transcript_path: transcript });

    // The process died (no sleep). The next session, after a daemon restart, is told.
    const b = stack(data);
    const s2 = await b.sessions.start(ws, {
      session_id: "second-session",
      source: "startup",
      cwd: "/home/dev/projects/billing",
    });
    expect(s2.recovery).toMatch(/^<cortex_recovery>\n\[NOTE: The previous session did not end cleanly/);
    expect(s2.recovery).toContain(`Previous session: ${SESSION}`);
    expect(s2.recovery).toContain(
      "Goal: Let's do that. The bucket credentials are AWS_SECRET_ACCESS_KEY=[REDACTED:secret] in the staging env.",
    );
    expect(s2.recovery).toContain("Last known focus: Done: the export uploads to s3://billing-exports-staging");
    expect(s2.recovery).toMatch(/<\/cortex_recovery>$/);
    expect(s2.previous).toMatchObject({ session_id: SESSION, clean: false });
    expect(s2.context).toMatch(/^<cortex_memories>\n\[NOTE: The following are recalled memories/);
    expect(s2.context).toContain("renderInvoicePdf");
    // Shown once only.
    expect((await b.sessions.start(ws, { session_id: "third", cwd: "/home/dev/projects/billing" })).recovery).toBe("");

    // A checkpoint, then a clean end: the next start has no recovery note.
    b.sessions.touch(ws, { session_id: "third", prompt: "Document the signed URL expiry in the runbook" });
    const cp = await b.sessions.checkpoint(ws, { session_id: "third" });
    expect(cp).toMatchObject({
      stored: true,
      summary: { goal: "Document the signed URL expiry in the runbook", focus: null },
    });
    expect(readFileSync(join(root, cp.path!), "utf8")).toMatch(
      /- \[checkpoint session third \d\d:\d\d\] Goal: Document the signed URL expiry in the runbook <!-- visibility: private -->\n$/,
    );
    expect((await b.sessions.checkpoint(ws, { session_id: "third" })).stored).toBe(false); // same summary again: deduplicated
    await b.sessions.sleep(ws, { session_id: "third", reason: "prompt_input_exit" });
    const s4 = await stack(data).sessions.start(ws, { session_id: "fourth", cwd: "/home/dev/projects/billing" });
    expect(s4.recovery).toBe("");
    expect(s4.previous).toMatchObject({ session_id: "third", clean: true });
  });
});
