import { describe, expect, it } from "vitest";
import { chunkFile } from "../src/ingest/chunk-file.js";
import { parseFrontmatter, replaceFrontmatter } from "../src/ingest/frontmatter.js";
import { DEFAULT_CHUNKING } from "../src/ingest/types.js";
import { openTestIndex, tempDir, writeFiles } from "./helpers/workspace.js";

describe("frontmatter", () => {
  it("reads name, description and type (top level or under metadata:), quoted or not", () => {
    expect(parseFrontmatter('---\nname: "a b"\ndescription: c: d\nmetadata:\n  type: user\n---\nx\n')).toEqual({
      name: "a b",
      description: "c: d",
      type: "user",
      lines: 6,
    });
    expect(parseFrontmatter("---\r\ntype: project\r\nother:\r\n  type: nope\r\n---\r\n")).toEqual({
      type: "project",
      lines: 5,
    });
    expect(parseFrontmatter("---\nname: never closed\n\nbody\n")).toBeNull();
    expect(parseFrontmatter("text\n---\nname: x\n---\n")).toBeNull();
  });

  it("stands in for the block line for line: the body keeps its line numbers, no key reaches a chunk", () => {
    const text = "---\nname: tabs\ndescription: use tabs\ntype: feedback\nsecret_key: hidden\n---\nBody line six.\n";
    const out = replaceFrontmatter(text);
    expect(out.split("\n")).toHaveLength(text.split("\n").length);
    expect(out.split("\n")[5]).toBe("[feedback] tabs — use tabs <!-- importance: 7 -->");
    expect(out.split("\n")[6]).toBe("Body line six.");
    for (const cls of ["note", "curated"] as const) {
      const { chunks } = chunkFile(cls, text, DEFAULT_CHUNKING);
      const all = chunks.map((c) => c.text).join("\n");
      expect(all).not.toMatch(/secret_key|hidden|^---|name:|type:/m);
      expect(chunks.at(-1)!.endLine).toBe(7);
      expect(all).toContain("Body line six.");
    }
    // A project memory is not a preference: no importance.
    expect(replaceFrontmatter("---\ntype: project\n---\n")).toBe("\n\n[project]\n");
    expect(replaceFrontmatter("no frontmatter\n")).toBe("no frontmatter\n");
  });
});

describe("preference types rank as preferences", () => {
  it("a feedback memory ranks above a project memory saying the same", async () => {
    const root = tempDir();
    const body = "Deploy the billing service only after the integration tests pass.\n";
    writeFiles(root, {
      "memory/notes/a-project.md": `---\nname: deploys\ndescription: deploy rule\ntype: project\n---\n${body}`,
      "memory/notes/b-feedback.md": `---\nname: deploys\ndescription: deploy rule\ntype: feedback\n---\n${body}`,
    });
    const idx = openTestIndex(root, null);
    await idx.indexer.sync();
    const res = await idx.searcher.search({ query: "deploy billing integration tests", explain: true });
    expect(res.results.map((r) => r.path)).toEqual(["memory/notes/b-feedback.md", "memory/notes/a-project.md"]);
    // Shown scores stop at 1; the ranking score behind them (explain) is what puts feedback first.
    const [first, second] = res.results.map((r) => r.explain!);
    expect(first!.importance).toBeGreaterThan(1);
    expect(second!.importance).toBeUndefined();
    expect(first!.score).toBeGreaterThan(second!.score!);
    idx.close();
  });
});
