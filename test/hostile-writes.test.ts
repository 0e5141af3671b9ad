import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
  chmodSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { localDate } from "../src/memory-files/entry.js";
import { MemoryWriter } from "../src/memory-files/writer.js";
import { redactSecrets } from "../src/memory-files/redact.js";
import { ErrorCodes } from "../src/rpc/protocol.js";
import { StateStore } from "../src/session/state.js";
import { daemonsPerTest, refusal } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

const { daemonOn } = daemonsPerTest();
const today = () => localDate(Date.now());

describe("memory writes never follow a symlink out of the workspace", () => {
  it("symlinked MEMORY.md, daily log and memory/ directory pointing outside: -32001 naming the link, the outside file untouched", async () => {
    const outside = tempDir();
    writeFileSync(join(outside, "target.md"), "outside\n");
    mkdirSync(join(outside, "dir"));

    const a = tempDir();
    writeFiles(a, { "memory/2026-01-01.md": "- old note" });
    symlinkSync(join(outside, "target.md"), join(a, "MEMORY.md"));
    symlinkSync(join(outside, "target.md"), join(a, "memory", `${today()}.md`));
    const d = await daemonOn(a);
    let e = await refusal(d.call("memory.save", { text: "a secret plan about herons", target: "memory" }));
    expect(e.code).toBe(ErrorCodes.PathRefused);
    expect(e.message).toContain(join(a, "MEMORY.md"));
    expect(e.message).toMatch(/symlink to .*target\.md, outside the workspace/);
    e = await refusal(d.call("memory.save", { text: "a daily note about herons" }));
    expect(e.code).toBe(ErrorCodes.PathRefused);
    expect(e.message).toContain(join(a, "memory", `${today()}.md`));
    e = await refusal(
      d.call("memory.capture", {
        session_id: "s1",
        messages: [
          { role: "user", content: "remember that the herons nest at the north lake" },
          { role: "assistant", content: "Noted: herons nest at the north lake." },
        ],
      }),
    );
    expect(e.code).toBe(ErrorCodes.PathRefused);
    expect(readFileSync(join(outside, "target.md"), "utf8")).toBe("outside\n");

    const b = tempDir();
    writeFiles(b, { "MEMORY.md": "# Memory\n" });
    symlinkSync(join(outside, "dir"), join(b, "memory"));
    const d2 = await daemonOn(b);
    e = await refusal(d2.call("memory.save", { text: "a note for the linked directory" }));
    expect(e.code).toBe(ErrorCodes.PathRefused);
    expect(e.message).toContain(join(b, "memory"));
    expect(existsSync(join(outside, "dir", `${today()}.md`))).toBe(false);
    // The daemon keeps serving, and MEMORY.md (a real file) still takes saves.
    expect((await d2.call("memory.save", { text: "a curated fact about kingfishers", target: "memory" })).stored).toBe(
      true,
    );
  }, 60_000);

  it("a symlink that stays inside the workspace is written through, like reads follow it", async () => {
    const root = tempDir();
    writeFiles(root, { "notes/real.md": "# Memory\n" });
    symlinkSync(join(root, "notes", "real.md"), join(root, "MEMORY.md"));
    const d = await daemonOn(root);
    expect((await d.call("memory.save", { text: "a fact kept through an inside link", target: "memory" })).stored).toBe(
      true,
    );
    expect(readFileSync(join(root, "notes", "real.md"), "utf8")).toContain("a fact kept through an inside link");
    expect(lstatSync(join(root, "MEMORY.md")).isSymbolicLink()).toBe(true);
  }, 30_000);
});

describe("new memory files' mode", () => {
  it("owner-only when there are no memory files beside it; otherwise the mode of those", async () => {
    const root = tempDir();
    writeFiles(root, { "MEMORY.md": "# Memory\n" });
    const d = await daemonOn(root);
    await d.call("memory.save", { text: "the first daily note of the day" });
    expect(statSync(join(root, "memory", `${today()}.md`)).mode & 0o777).toBe(0o600);

    const shared = tempDir();
    writeFiles(shared, { "memory/2026-01-01.md": "- an old note\n" });
    chmodSync(join(shared, "memory", "2026-01-01.md"), 0o640);
    const d2 = await daemonOn(shared);
    await d2.call("memory.save", { text: "a note in a group-readable workspace" });
    expect(statSync(join(shared, "memory", `${today()}.md`)).mode & 0o777).toBe(0o640);
  }, 30_000);
});

describe("redaction of common secret forms", () => {
  it.each([
    ["escaped JSON", String.raw`tool said {\"user\": \"bob\", \"password\": \"hunter22-secret\"}`, "hunter22-secret"],
    ["curl -u", "curl -u admin:S3cretPass https://api.example.com/v1", "S3cretPass"],
    ["curl --user", "curl --user deploy:Zx9-pass-77 https://x.example", "Zx9-pass-77"],
    ["--password X", "mysqldump --password hunter2222 main", "hunter2222"],
    ["--password=X", "tool --password=Tr0ub4dor&3 run", "Tr0ub4dor&3"],
    ["sshpass -p", "sshpass -p 'MyPa55word' ssh admin@host", "MyPa55word"],
    ["PGPASSWORD", "PGPASSWORD=pgsecret99 psql -h db.internal", "pgsecret99"],
  ])("%s", (_name, text, secret) => {
    const r = redactSecrets(text);
    expect(r.text).not.toContain(secret);
    expect(r.count).toBeGreaterThan(0);
  });
  it("prose about the flags is left alone", () => {
    for (const t of [
      "the --password flag is required",
      "use curl -u user to log in",
      "set PGPASSWORD in the environment",
    ])
      expect(redactSecrets(t).count, t).toBe(0);
  });
});

describe("dedupe is a time window, not a count", () => {
  it("a save is still a duplicate 20 minutes and 600 other saves later, and not after 30 minutes", async () => {
    const root = tempDir();
    let now = Date.parse("2026-06-01T09:00:00");
    const state = new StateStore(tempDir(), () => now);
    const w = new MemoryWriter(state, () => now);
    const ws = { root, name: "t" };
    expect((await w.save(ws, { text: "the heron colony moved to the north shore of the lake" })).stored).toBe(true);
    for (let i = 0; i < 600; i++) {
      now += 2000;
      await w.save(ws, { text: `alpha${i} bravo${i} charlie${i} delta${i} echo${i}` }); // all words new: each is stored
    }
    now = Date.parse("2026-06-01T09:20:00");
    const again = await w.save(ws, { text: "the heron colony moved to the north shore of the lake" });
    expect(again.stored).toBe(false);
    expect(again.duplicateOf).toMatch(/^memory\/2026-06-01\.md:\d+$/);
    now = Date.parse("2026-06-01T09:31:00");
    expect((await w.save(ws, { text: "the heron colony moved to the north shore of the lake" })).stored).toBe(true);
  }, 60_000);
});
