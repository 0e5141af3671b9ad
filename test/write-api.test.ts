import { spawn } from "node:child_process";
import { appendFileSync, copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CortexClient, RpcError } from "../src/client/client.js";
import { localDate } from "../src/memory-files/entry.js";
import { runCli } from "./helpers/cli.js";
import { daemonsPerTest, waitUntil } from "./helpers/daemon.js";
import { CC_FIXTURES } from "./helpers/hooks.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";
import { SECRETS } from "./helpers/secrets.js";

const { daemonOn } = daemonsPerTest();

const today = () => `memory/${localDate()}.md`;

describe("memory.save (real daemon)", () => {
  it("appends a bullet to today's log (heading first) or MEMORY.md, returns the lines, and is searchable in the reply's wake", async () => {
    const root = tempDir();
    writeFiles(root, { "MEMORY.md": "- Prefers tea.\n" });
    const d = await daemonOn(root);
    const r = await d.call("memory.save", {
      text: "Decided: the staging cluster is rebuilt every Friday night",
      importance: 8,
      tags: ["infra", "#staging"],
    });
    expect(r).toEqual({ stored: true, path: today(), startLine: 3, endLine: 3, redactions: 0, indexed: true });
    expect(readFileSync(join(root, today()), "utf8")).toBe(
      `# ${localDate()}\n\n- Decided: the staging cluster is rebuilt every Friday night #infra #staging <!-- importance: 8 --> <!-- visibility: private -->\n`,
    );
    // Indexed before the reply: searchable at once, no waiting for the watcher.
    const hits = await d.call("memory.search", { query: "staging cluster rebuilt Friday", limit: 3 });
    expect(hits.results[0]?.path).toBe(today());

    const m = await d.call("memory.save", { text: "Alice is the billing on-call owner", target: "memory" });
    expect(m).toMatchObject({ stored: true, path: "MEMORY.md", startLine: 2, endLine: 2, indexed: true });
    expect(readFileSync(join(root, "MEMORY.md"), "utf8")).toBe(
      "- Prefers tea.\n- Alice is the billing on-call owner <!-- visibility: private -->\n",
    );
    expect((await d.call("memory.search", { query: "billing on-call owner", limit: 3 })).results[0]?.path).toBe(
      "MEMORY.md",
    );

    await expect(d.call("memory.save", { text: "" })).rejects.toThrow(/text/);
    await expect(d.call("memory.save", { text: "x", target: "elsewhere" as "daily" })).rejects.toThrow(/target/);
  });

  it("20 concurrent saves and a person appending to the same daily log at the same time lose nothing", async () => {
    const root = tempDir();
    const d = await daemonOn(root);
    const file = join(root, today());
    await d.call("memory.save", { text: "First note of the day: kickoff at 09:30" });
    // The person: another process appending 60 lines to the same file (as `echo >>` or an editor's append would).
    const person = spawn(
      process.execPath,
      [
        "-e",
        `const fs=require("fs");let i=0;const t=setInterval(()=>{fs.appendFileSync(${JSON.stringify(file)},"- person note "+i+" about topic "+(i*7919)+"\\n");if(++i===60)clearInterval(t);},2);`,
      ],
      { stdio: "ignore" },
    );
    const personDone = new Promise((r) => person.on("exit", r));
    // 20 saves in parallel, each on its own connection (distinct texts: no dedupe).
    const texts = Array.from(
      { length: 20 },
      (_, i) =>
        `Concurrent save ${i}: ${Array.from({ length: 8 }, (_, j) => `w${i}${String.fromCharCode(97 + j)}`).join(" ")}`,
    );
    const results = await Promise.all(
      texts.map(async (text) => {
        const c = await CortexClient.connect(d.socket, { timeoutMs: 30_000 });
        try {
          return await c.call("memory.save", { text });
        } finally {
          c.close();
        }
      }),
    );
    await personDone;
    const lines = readFileSync(file, "utf8").split("\n");
    for (let i = 0; i < 60; i++) expect(lines).toContain(`- person note ${i} about topic ${i * 7919}`);
    for (const t of texts) expect(lines.filter((l) => l === `- ${t} <!-- visibility: private -->`)).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith("- ")).length).toBe(1 + 20 + 60);
    expect(lines.every((l) => l === "" || l.startsWith("- ") || l.startsWith("# "))).toBe(true); // no line glued to another
    for (const [i, r] of results.entries()) {
      expect(r.stored).toBe(true);
      expect(lines[r.startLine! - 1]).toBe(`- ${texts[i]} <!-- visibility: private -->`);
    }
  });

  it("redacts secrets before they reach the file or the index", async () => {
    const root = tempDir();
    const d = await daemonOn(root);
    const text = [
      `Staging access: OpenAI ${SECRETS.openai}, Anthropic ${SECRETS.anthropic}`,
      `GitHub deploy token ${SECRETS.github}, AWS ${SECRETS.aws} with aws_secret_access_key=${SECRETS.awsSecret}`,
      `Slack ${SECRETS.slack}, Maps ${SECRETS.google}, session ${SECRETS.jwt}`,
      `db password=Tr0ub4dor&3x, Authorization: Bearer ${SECRETS.bearer}`,
      SECRETS.privateKey,
    ].join("\n");
    const r = await d.call("memory.save", { text });
    expect(r.stored).toBe(true);
    expect(r.redactions).toBe(11);
    expect(r.redactedKinds).toEqual(
      expect.arrayContaining([
        "openai-key",
        "anthropic-key",
        "github-token",
        "aws-access-key",
        "secret",
        "slack-token",
        "google-api-key",
        "jwt",
        "password",
        "bearer-token",
        "private-key",
      ]),
    );
    const written = readFileSync(join(root, today()), "utf8");
    expect(written).toContain("Staging access: OpenAI [REDACTED:openai-key], Anthropic [REDACTED:anthropic-key]");
    const leaks = [
      SECRETS.openai,
      SECRETS.anthropic,
      SECRETS.github,
      SECRETS.aws,
      SECRETS.awsSecret,
      SECRETS.slack,
      SECRETS.google,
      SECRETS.jwt,
      "Tr0ub4dor",
      SECRETS.bearer,
      "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
    ];
    for (const s of leaks) expect(written).not.toContain(s);
    const found = await d.call("memory.search", { query: "staging access deploy token", limit: 5 });
    expect(found.results.length).toBeGreaterThan(0);
    for (const h of found.results) for (const s of leaks) expect(h.snippet).not.toContain(s);
  });

  it("dedupes a near-duplicate of a recent save (30 min window) and says where the original is; CLI save works with and without the daemon", async () => {
    const root = tempDir();
    const d = await daemonOn(root);
    const first = await d.call("memory.save", {
      text: "The quarterly billing close moves to the second Tuesday from January",
    });
    const dup = await d.call("memory.save", {
      text: "quarterly billing close moves to the second Tuesday (from January).",
    });
    expect(dup).toEqual({ stored: false, path: today(), redactions: 0, duplicateOf: `${today()}:${first.startLine}` });
    const more = await d.call("memory.save", {
      text: "The quarterly billing close moves to the second Tuesday from January; finance signs off on Wednesday",
    });
    expect(more.stored).toBe(true); // adds to it: not a duplicate

    const cli = runCli(
      ["save", "Ops handover is at 16:00 UTC on Thursdays", "--tag", "ops", "--importance", "6"],
      d.env,
    );
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(new RegExp(`^saved to ${today().replace(/[.]/g, "\\.")}:\\d+\\n$`));
    const again = runCli(["save", "ops handover is at 16:00 UTC on Thursdays", "--json"], d.env);
    expect(JSON.parse(again.stdout)).toMatchObject({
      stored: false,
      duplicateOf: expect.stringMatching(/^memory\/.*:\d+$/),
    });

    // Without a daemon: the file is written the same way (and indexed when the daemon starts).
    await d.stop();
    const offline = runCli(
      ["save", "--target", "memory", "The VPN config lives in the infra repo, token: hunter2hunter2"],
      d.env,
    );
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stdout).toContain("saved to MEMORY.md:1 (1 secret redacted)");
    expect(offline.stdout).toContain("will be indexed when the daemon starts");
    expect(readFileSync(join(root, "MEMORY.md"), "utf8")).toBe(
      "- The VPN config lives in the infra repo, token: [REDACTED:token] <!-- visibility: private -->\n",
    );
    const d2 = await daemonOn(root, { home: d.home });
    await waitUntil(async () =>
      (await d2.call("memory.search", { query: "VPN config infra repo", limit: 3 })).results.some(
        (h) => h.path === "MEMORY.md",
      ),
    );
  });
});

describe("memory.capture (real daemon)", () => {
  it("the per-session watermark survives a daemon restart", async () => {
    const root = tempDir();
    const d = await daemonOn(root);
    const transcript = join(tempDir(), "5f0c2a9e-7b1d-4c8e-9a3f-2d6b8e1c4a70.jsonl");
    copyFileSync(join(CC_FIXTURES, "transcript.jsonl"), transcript);
    const params = { session_id: "5f0c2a9e-7b1d-4c8e-9a3f-2d6b8e1c4a70", transcript_path: transcript };
    const day = `memory/${localDate(Date.parse("2026-11-27T09:14:41.870Z"))}.md`;
    expect(await d.call("memory.capture", params)).toMatchObject({
      stored: true,
      entries: 3,
      skipped: 1,
      path: day,
      indexed: true,
    });
    // Searchable at once.
    expect(
      (await d.call("memory.search", { query: "N+1 queries tax table", limit: 3 })).results.some((h) => h.path === day),
    ).toBe(true);

    await d.stop();
    const d2 = await daemonOn(root, { home: d.home });
    expect(await d2.call("memory.capture", params)).toMatchObject({ stored: false, entries: 0, messages: 0 });
    appendFileSync(
      transcript,
      JSON.stringify({
        type: "user",
        message: { role: "user", content: "Also log the export duration as a metric so we see regressions early." },
        timestamp: "2026-11-27T10:30:00.000Z",
      }) +
        "\n" +
        JSON.stringify({
          type: "assistant",
          message: {
            role: "assistant",
            content: [{ type: "text", text: "Added the invoice_export_seconds histogram with a p95 alert at 10 s." }],
          },
          timestamp: "2026-11-27T10:31:00.000Z",
        }) +
        "\n",
    );
    expect(await d2.call("memory.capture", params)).toMatchObject({
      stored: true,
      entries: 1,
      startLine: 6,
      endLine: 6,
    });
    expect(
      readFileSync(join(root, day), "utf8")
        .split("\n")
        .filter((l) => l.startsWith("- ")),
    ).toHaveLength(4);
  });

  it("refuses bad params with -32602", async () => {
    const root = tempDir();
    const d = await daemonOn(root);
    const err = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: RpcError) => ({ code: e.code, message: e.message }),
      );
    expect(await err(d.call("memory.capture", { session_id: "s" }))).toEqual({
      code: -32602,
      message: "invalid params: give messages or transcript_path",
    });
    expect(await err(d.call("memory.capture", { session_id: "s", transcript_path: "relative.jsonl" }))).toEqual({
      code: -32602,
      message: "invalid params: transcript_path must be absolute",
    });
    expect(await err(d.call("memory.capture", { session_id: "s", transcript_path: "/etc/passwd" }))).toEqual({
      code: -32602,
      message: "invalid params: transcript_path must be a .jsonl file",
    });
    expect(
      (await err(d.call("memory.capture", { session_id: "s", transcript_path: "/nonexistent/x.jsonl" })))?.message,
    ).toMatch(/cannot read transcript .*ENOENT/);
  });
});
