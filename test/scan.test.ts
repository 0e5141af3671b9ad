import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { classifyWorkspacePath, dateFromName } from "../src/workspace/classify.js";
import { scanWorkspace } from "../src/workspace/scan.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

describe("workspace scan", () => {
  it("finds memory files, classifies them and dates daily logs", async () => {
    const root = tempDir();
    writeFiles(root, {
      "MEMORY.md": "- a",
      "USER.md": "- b",
      "README.md": "not memory",
      "memory/2026-11-28.md": "daily",
      "memory/2026-11-29-standup.md": "daily too",
      "memory/projects/ideas.md": "note",
      "memory/2026-02-30.md": "not a real date: a note",
      "memory/image.png": "x",
      "sessions/abc.jsonl": "{}",
      "sessions/old/def.jsonl": "{}",
      "sessions/notes.txt": "x",
      "memory/.obsidian/cache.md": "dot dir",
      "memory/node_modules/x.md": "ignored",
      ".git/MEMORY.md": "ignored",
    });
    const { files } = await scanWorkspace({ root });
    expect(files.map((f) => [f.path, f.class, f.date ?? null])).toEqual([
      ["MEMORY.md", "curated", null],
      ["USER.md", "curated", null],
      ["memory/2026-02-30.md", "note", null],
      ["memory/2026-11-28.md", "daily", "2026-11-28"],
      ["memory/2026-11-29-standup.md", "daily", "2026-11-29"],
      ["memory/projects/ideas.md", "note", null],
      ["sessions/abc.jsonl", "transcript", null],
      ["sessions/old/def.jsonl", "transcript", null],
    ]);
  });

  it("never follows a symlink out of the root, and survives symlink loops", async () => {
    const root = tempDir();
    const outside = tempDir();
    writeFiles(outside, { "secret.md": "outside the workspace" });
    writeFiles(root, { "memory/2026-01-01.md": "inside", "memory/real/a.md": "a" });
    symlinkSync(join(outside, "secret.md"), join(root, "memory", "leak.md"));
    symlinkSync(outside, join(root, "memory", "leakdir"));
    symlinkSync(join(root, "memory"), join(root, "memory", "real", "loop"));
    symlinkSync(join(root, "memory", "real", "a.md"), join(root, "memory", "alias.md"));
    const { files, skipped } = await scanWorkspace({ root });
    const paths = files.map((f) => f.path);
    expect(paths).toContain("memory/2026-01-01.md");
    expect(paths).toContain("memory/alias.md");
    expect(paths.some((p) => p.includes("leak"))).toBe(false);
    expect(skipped.map((s) => s.reason)).toContain("symlink leads outside the workspace");
  });

  it("adds transcript dirs and extra paths outside the root with absolute keys", async () => {
    const root = tempDir();
    const agent = tempDir();
    const extra = tempDir();
    writeFiles(root, { "MEMORY.md": "- m" });
    writeFiles(agent, { "s1.jsonl": "{}", "ignored.md": "not a transcript" });
    writeFiles(extra, { "2026-03-04.md": "dated", "ref.md": "note" });
    const { files, skipped } = await scanWorkspace({
      root,
      transcriptDirs: [agent],
      extraPaths: [extra, join(root, "missing")],
    });
    expect(files.map((f) => [f.path, f.class])).toEqual(
      expect.arrayContaining([
        [join(agent, "s1.jsonl"), "transcript"],
        [join(extra, "2026-03-04.md"), "daily"],
        [join(extra, "ref.md"), "note"],
      ]),
    );
    expect(files.some((f) => f.path.endsWith("ignored.md"))).toBe(false);
    expect(skipped.some((s) => s.reason === "configured path does not exist")).toBe(true);
  });

  it("rejects a missing root with a clear message", async () => {
    await expect(scanWorkspace({ root: join(tempDir(), "nope") })).rejects.toThrow(/does not exist/);
  });

  it("classifies paths and validates dates", () => {
    expect(classifyWorkspacePath("notes.md")).toBeNull();
    expect(classifyWorkspacePath("memory/x.MD")).toEqual({ class: "note" });
    expect(dateFromName("2026-13-01.md")).toBeUndefined();
    expect(dateFromName("2024-02-29.md")).toBe("2024-02-29");
    mkdirSync(join(tempDir(), "x"));
  });
});
