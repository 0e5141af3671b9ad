import { spawn } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appendLines, KeyedLock } from "../src/memory-files/append.js";
import { findDuplicate, wordOverlap, wordSet } from "../src/memory-files/dedupe.js";
import { formatEntry, localDate } from "../src/memory-files/entry.js";
import { redactSecrets } from "../src/memory-files/redact.js";
import { MemoryWriter } from "../src/memory-files/writer.js";
import { StateStore } from "../src/session/state.js";
import { SECRETS } from "./helpers/secrets.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

describe("redactSecrets", () => {
  it("replaces each known key format with a marker naming its kind", () => {
    const cases: [string, string][] = [
      [`OpenAI key ${SECRETS.openai} for the bot`, "openai-key"],
      [`claude: ${SECRETS.anthropic}`, "anthropic-key"],
      [`push with ${SECRETS.github}`, "github-token"],
      [`fine-grained ${SECRETS.githubPat}`, "github-token"],
      [`aws id ${SECRETS.aws}`, "aws-access-key"],
      [`slack bot ${SECRETS.slack}`, "slack-token"],
      [`maps ${SECRETS.google}`, "google-api-key"],
      [`session cookie ${SECRETS.jwt}`, "jwt"],
      [`deploy key:\n${SECRETS.privateKey}\nkeep it safe`, "private-key"],
      [`old key ${SECRETS.rsaKey}`, "private-key"],
      [`curl -H "Authorization: Bearer ${SECRETS.bearer}"`, "bearer-token"],
      ["db password=hunter2hunter2 for staging", "password"],
      [`aws_secret_access_key=${SECRETS.awsSecret}`, "secret"],
      ['config {"api_key": "abcd1234efgh5678"}', "api-key"],
      ["export GITHUB_TOKEN=abc123def456ghi789", "token"],
      ["connect to postgres://admin:s3cr3tPa55@db.internal:5432/app", "password"],
    ];
    for (const [text, kind] of cases) {
      const r = redactSecrets(text);
      expect(r.kinds, text).toContain(kind);
      expect(r.text).toContain(`[REDACTED:${kind}]`);
    }
    // Together in one text, none survives (the AWS secret and the bearer token only with their key/scheme).
    const all = redactSecrets(cases.map(([t]) => t).join("\n"));
    for (const s of Object.values(SECRETS))
      for (const piece of s.split("\n").filter((l) => l.length > 12 && !l.startsWith("-----")))
        expect(all.text).not.toContain(piece);
  });

  it("keeps the words around a secret and leaves ordinary prose alone", () => {
    const r = redactSecrets(
      `The MY_DB_PASSWORD="correct horse battery staple" goes in .env; rotate ${SECRETS.github} monthly.`,
    );
    expect(r.text).toBe(
      'The MY_DB_PASSWORD="[REDACTED:password]" goes in .env; rotate [REDACTED:github-token] monthly.',
    );
    expect(r.count).toBe(2);
    const prose =
      "max_tokens: 4096; the author: Jane; secretary: Bob; tokenizer: bpe; password: required; the token budget is 2000; passwordless: true; " +
      "we use sk-learn style names? no: scikit-learn. Task-management-system-for-everyone is fine.";
    expect(redactSecrets(prose)).toEqual({ text: prose, count: 0, kinds: [] });
  });
});

describe("dedupe", () => {
  it("a new text mostly said by a recent save is a duplicate; one that adds to it is not", () => {
    const old = wordSet("Decided: releases move to Wednesdays after the Q3 review");
    expect(wordOverlap(wordSet("Releases move to Wednesdays"), old)).toBe(1);
    expect(wordOverlap(wordSet("Releases move to Wednesdays; the freeze starts Monday at noon"), old)).toBeLessThan(
      0.7,
    );
    expect(wordOverlap(wordSet("deploy"), wordSet("deploy failed again"))).toBe(0); // 1-2 words: exact only
    expect(wordOverlap(wordSet("Deploy!"), wordSet("deploy"))).toBe(1);
    const now = Date.now();
    const recent = [
      { at: now - 31 * 60_000, text: "the staging database moved to eu-west-1", where: "memory/a.md:3" },
      { at: now - 5 * 60_000, text: "Alice owns the billing service", where: "memory/a.md:4" },
    ];
    expect(findDuplicate(recent, "The staging database moved to eu-west-1", now)).toBeUndefined(); // outside 30 min
    expect(findDuplicate(recent, "alice owns the billing service.", now)?.where).toBe("memory/a.md:4");
  });
});

describe("formatEntry", () => {
  it("writes one bullet with tags and importance; continuation lines stay in the item", () => {
    expect(formatEntry("Prefers tea", { tags: ["#drinks", "morning routine"], importance: 7 })).toEqual([
      "- Prefers tea #drinks #morning-routine <!-- importance: 7 -->",
    ]);
    expect(formatEntry("- already a bullet\n\nsecond line\n  third")).toEqual([
      "- already a bullet",
      "  second line",
      "  third",
    ]);
  });
});

describe("appendLines", () => {
  it("creates a daily log with its heading, appends after a line without a newline, reports exact lines", async () => {
    const root = tempDir();
    const file = join(root, "memory", "2026-11-29.md");
    const a = await appendLines(file, ["- first"], { header: "# 2026-11-29\n\n" });
    expect(a).toMatchObject({ created: true, startLine: 3, endLine: 3 });
    appendFileSync(file, "- typed by a person, no newline yet");
    const b = await appendLines(file, ["- second", "  continued"], { header: "# ignored\n" });
    expect(b).toMatchObject({ created: false, startLine: 5, endLine: 6 });
    expect(readFileSync(file, "utf8")).toBe(
      "# 2026-11-29\n\n- first\n- typed by a person, no newline yet\n- second\n  continued\n",
    );
  });

  it("loses no line when another process appends to the same file while we append", async () => {
    const root = tempDir();
    const file = join(root, "memory", "2026-11-29.md");
    writeFiles(root, { "memory/2026-11-29.md": "# 2026-11-29\n\n" });
    // A person (another process) appending 200 lines as fast as it can, with O_APPEND like any editor's >>.
    const person = spawn(
      process.execPath,
      [
        "-e",
        `const fs=require("fs");for(let i=0;i<200;i++){fs.appendFileSync(${JSON.stringify(file)},"- person line "+i+"\\n");}`,
      ],
      { stdio: "ignore" },
    );
    const personDone = new Promise((r) => person.on("exit", r));
    const lock = new KeyedLock();
    const ours = Array.from({ length: 100 }, (_, i) => lock.run(file, () => appendLines(file, [`- daemon line ${i}`])));
    const results = await Promise.all(ours);
    await personDone;
    const lines = readFileSync(file, "utf8").split("\n");
    for (let i = 0; i < 200; i++) expect(lines).toContain(`- person line ${i}`);
    for (let i = 0; i < 100; i++) expect(lines).toContain(`- daemon line ${i}`);
    expect(lines.filter((l) => l.startsWith("- ")).length).toBe(300);
    // The reported line numbers point at our lines.
    for (const [i, r] of results.entries()) expect(lines[r.startLine! - 1]).toBe(`- daemon line ${i}`);
  });
});

describe("MemoryWriter", () => {
  it("redacts, dedupes concurrent identical saves, and records where each save went", async () => {
    const root = tempDir();
    const state = StateStore.forDataDir(tempDir());
    const w = new MemoryWriter(state);
    const ws = { root, name: "test" };
    const saves = await Promise.all([
      w.save(ws, { text: `Use ${SECRETS.openai} for the eval runs` }),
      w.save(ws, { text: `use ${SECRETS.openai} for the eval runs!` }),
      w.save(ws, { text: "The office wifi is called Heron", target: "memory", tags: ["office"] }),
    ]);
    expect(saves[0]).toMatchObject({
      stored: true,
      path: `memory/${localDate()}.md`,
      startLine: 3,
      endLine: 3,
      redactions: 1,
      redactedKinds: ["openai-key"],
    });
    expect(saves[1]).toMatchObject({ stored: false, duplicateOf: `memory/${localDate()}.md:3` });
    expect(saves[2]).toMatchObject({ stored: true, path: "MEMORY.md", startLine: 1 });
    expect(readFileSync(join(root, "memory", `${localDate()}.md`), "utf8")).toBe(
      `# ${localDate()}\n\n- Use [REDACTED:openai-key] for the eval runs <!-- visibility: private -->\n`,
    );
    expect(readFileSync(join(root, "MEMORY.md"), "utf8")).toBe(
      "- The office wifi is called Heron #office <!-- visibility: private -->\n",
    );
    // The dedupe record survives a restart (a new store reading the same state file).
    const again = await new MemoryWriter(StateStore.forDataDir(state.dir.replace(/\/state$/, ""))).save(ws, {
      text: "Use [REDACTED:openai-key] for the eval runs",
    });
    expect(again.stored).toBe(false);
  });
});
