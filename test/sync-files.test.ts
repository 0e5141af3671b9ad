import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { conflictCopyKey, conflictCopyOf } from "../src/workspace/conflict-copies.js";
import { hasConflictMarkers, scanConflicts } from "../src/ingest/conflict-markers.js";
import { syncInit, BLOCK_START } from "../src/multi-device/init.js";
import { collapseConflictCopies } from "../src/search/recall-copies.js";
import { sidecarKey } from "../src/multi-device/save-sidecar.js";
import { classifyWorkspacePath } from "../src/workspace/classify.js";
import { gitHome, gitOk } from "./helpers/git.js";
import { isolatedEnv, runCli } from "./helpers/cli.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

describe("git conflict markers", () => {
  const conflicted = [
    "# 2026-12-01",
    "",
    "<<<<<<< HEAD",
    "- shared line",
    "- laptop line",
    "=======",
    "- shared line",
    "- desktop line",
    ">>>>>>> 1a2b3c4 (desktop memory)",
    "- after",
  ].join("\n");

  it("are indexed without the markers, each side once, every line keeping its number", () => {
    const r = scanConflicts(conflicted);
    expect(r.blocks).toBe(1);
    const lines = r.text.split("\n");
    expect(lines).toHaveLength(conflicted.split("\n").length);
    expect(lines.filter((l) => l.includes("shared line"))).toHaveLength(1);
    expect(lines[4]).toBe("- laptop line");
    expect(lines[7]).toBe("- desktop line");
    expect(lines[9]).toBe("- after");
    expect(r.text).not.toMatch(/<{7}|={7}|>{7}/);
  });

  it("drop a diff3 base section", () => {
    const r = scanConflicts("<<<<<<< ours\n- a\n||||||| base\n- old\n=======\n- b\n>>>>>>> theirs\n");
    expect(r.text).toBe("\n- a\n\n\n\n- b\n\n");
  });

  it("are only a whole block: a setext heading underline or a lone marker is text", () => {
    expect(hasConflictMarkers("Title\n=======\n\ntext\n")).toBe(false);
    expect(hasConflictMarkers("<<<<<<< HEAD\n- a\n")).toBe(false);
    expect(hasConflictMarkers("<<<<<<< HEAD\n- a\n=======\n- b\n")).toBe(false);
    expect(hasConflictMarkers(conflicted)).toBe(true);
  });
});

describe("conflict copies of file-sync tools", () => {
  it.each([
    ["2026-12-01.sync-conflict-20261201-101500-ABCDEFG.md", "2026-12-01.md"],
    ["MEMORY.sync-conflict-20261201-101500-7QWERTY.md", "MEMORY.md"],
    ["2026-12-01 (conflicted copy 2026-12-01).md", "2026-12-01.md"],
    ["notes (Ann's conflicted copy 2026-12-01).md", "notes.md"],
    ["notes 2.md", "notes.md"],
  ])("%s is a copy of %s", (copy, of) => expect(conflictCopyOf(copy)).toBe(of));

  it.each([
    "2026-12-01.md",
    "2026-12-01.laptop.md",
    "release2.md",
    "2026-12-01.saved-during-conflict.md",
    "sprint 1.md",
  ])("%s is not a copy", (name) => expect(conflictCopyOf(name)).toBeUndefined());

  it("keep their directory, and dated ones stay daily logs of that date (as do per-device logs and sidecars)", () => {
    expect(conflictCopyKey("memory/team/2026-12-01 2.md")).toBe("memory/team/2026-12-01.md");
    for (const name of [
      "2026-12-01.sync-conflict-20261201-101500-ABCDEFG.md",
      "2026-12-01.laptop.md",
      "2026-12-01.saved-during-conflict.md",
      "2026-12-01 (conflicted copy 2026-12-02).md",
    ]) {
      expect(classifyWorkspacePath(`memory/${name}`)).toEqual({ class: "daily", date: "2026-12-01" });
    }
    expect(sidecarKey("memory/2026-12-01.md")).toBe("memory/2026-12-01.saved-during-conflict.md");
    expect(sidecarKey("MEMORY.md")).toBe("memory/MEMORY.saved-during-conflict.md");
  });

  it("recall shows a line shared by a file and its copy once, keeps the copy's own lines and their line numbers", () => {
    const hits = [
      { path: "memory/2026-12-01.md", snippet: "", text: "- a\n- b" },
      { path: "memory/2026-12-01.sync-conflict-20261201-101500-ABCDEFG.md", snippet: "", text: "- a\n- b\n- c" },
      { path: "memory/2026-12-01 2.md", snippet: "", text: "- b" },
      { path: "memory/other.md", snippet: "", text: "- a" },
    ];
    expect(collapseConflictCopies(hits).map((h) => [h.path, h.text])).toEqual([
      ["memory/2026-12-01.md", "- a\n- b"],
      ["memory/2026-12-01.sync-conflict-20261201-101500-ABCDEFG.md", "\n\n- c"],
      ["memory/other.md", "- a"],
    ]);
  });
});

describe("cortexd sync init (the function `cortexd init` calls too)", () => {
  it("-w takes the workspace the way every command does: a relative path from the cwd, an unknown one named", () => {
    const home = tempDir("cortexd-home-");
    const parent = tempDir("cortexd-parent-");
    const root = join(parent, "notes");
    writeFiles(root, { "MEMORY.md": "- x\n" });
    gitOk(root, gitHome("sync-w"), "init", "-q");
    const env = isolatedEnv(home);
    const r = runCli(["sync", "init", "--json", "-w", "notes"], env, undefined, { cwd: parent });
    expect(r.code).toBe(0);
    expect(readFileSync(join(root, ".gitattributes"), "utf8")).toContain(BLOCK_START);
    const bad = runCli(["sync", "init", "-w", "nosuchname"], env, undefined, { cwd: parent });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/no workspace named "nosuchname"/);
  });

  it("adds its block beside the user's own attributes, idempotently, and git applies it", () => {
    const home = gitHome("init");
    const root = tempDir("cortexd-init-");
    gitOk(root, home, "init", "-q");
    writeFileSync(join(root, ".gitattributes"), "*.png binary");
    const first = syncInit(root);
    expect(first).toMatchObject({ git: true, changed: true, created: false });
    const text = readFileSync(join(root, ".gitattributes"), "utf8");
    expect(text.startsWith("*.png binary\n\n" + BLOCK_START)).toBe(true);
    expect(syncInit(root).changed).toBe(false);
    expect(readFileSync(join(root, ".gitattributes"), "utf8")).toBe(text);
    // An outdated block is replaced, the rest kept.
    writeFileSync(join(root, ".gitattributes"), text.replace("sessions/**/*.jsonl merge=union\n", ""));
    expect(syncInit(root).changed).toBe(true);
    expect(readFileSync(join(root, ".gitattributes"), "utf8")).toBe(text);
    const attr = gitOk(
      root,
      home,
      "check-attr",
      "merge",
      "--",
      "memory/2026-12-01.md",
      "memory/2026-12-01.laptop.md",
      "memory/notes.md",
      "USER.md",
      "sessions/s.jsonl",
    );
    expect(attr).toBe(
      "memory/2026-12-01.md: merge: union\nmemory/2026-12-01.laptop.md: merge: union\nmemory/notes.md: merge: unspecified\nUSER.md: merge: unspecified\nsessions/s.jsonl: merge: union\n",
    );
  });

  it("writes nothing outside git and says what to do instead", () => {
    const root = tempDir("cortexd-init-");
    mkdirSync(join(root, "memory"));
    const r = syncInit(root);
    expect(r).toMatchObject({ git: false, changed: false });
    expect(r.next.join(" ")).toMatch(/perDeviceLog/);
  });
});

describe("saves around a conflicted file (MemoryWriter)", () => {
  it("never append to a file with conflict markers: MEMORY.md and the day's log divert to their sidecars, clean files do not", async () => {
    const { MemoryWriter } = await import("../src/memory-files/writer.js");
    const { StateStore } = await import("../src/session/state.js");
    const root = tempDir("cortexd-sidecar-");
    const conflicted = "# Memory\n<<<<<<< HEAD\n- ours\n=======\n- theirs\n>>>>>>> abc\n";
    writeFileSync(join(root, "MEMORY.md"), conflicted);
    const writer = new MemoryWriter(StateStore.forDataDir(tempDir("cortexd-data-")), () => Date.UTC(2026, 11, 1, 12));
    const ws = { root, name: "ws" };
    const a = await writer.save(ws, { text: "A curated fact", target: "memory" });
    expect(a).toMatchObject({ stored: true, path: "memory/MEMORY.saved-during-conflict.md", conflicted: "MEMORY.md" });
    expect(readFileSync(join(root, "MEMORY.md"), "utf8")).toBe(conflicted);
    const day = await writer.save(ws, { text: "A daily fact" });
    expect(day.conflicted).toBeUndefined();
    const log = join(root, day.path);
    writeFileSync(log, readFileSync(log, "utf8") + "<<<<<<< HEAD\n- x\n=======\n- y\n>>>>>>> def\n");
    const before = readFileSync(log, "utf8");
    const c = await writer.write(ws, "daily", day.path.slice(7, 17), [
      { lines: ["- captured turn"], dedupeText: "captured turn", kind: "capture" },
    ]);
    expect(c).toMatchObject({ key: day.path.replace(".md", ".saved-during-conflict.md"), conflicted: day.path });
    expect(readFileSync(log, "utf8")).toBe(before);
  });
});
