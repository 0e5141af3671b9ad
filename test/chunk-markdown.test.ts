import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { chunkMarkdown } from "../src/ingest/markdown.js";
import { countTokens } from "../src/ingest/tokens.js";
import type { Chunk } from "../src/ingest/types.js";

/** A line of exactly `k` tokens (3-letter words count 1 token each), tagged for reading. */
function words(tag: string, k: number): string {
  expect(tag).toHaveLength(3);
  return [tag, ...Array<string>(k - 1).fill("abc")].join(" ");
}

function spans(chunks: Chunk[]): Array<[number, number]> {
  return chunks.map((c) => [c.startLine, c.endLine]);
}

const dir = mkdtempSync(join(tmpdir(), "cortexd-chunk-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `text` to a temp file and chunks what is read back (as the indexer does). */
function chunkFile(name: string, text: string, opts: Parameters<typeof chunkMarkdown>[1]): Chunk[] {
  const path = join(dir, name);
  writeFileSync(path, text);
  return chunkMarkdown(readFileSync(path, "utf8"), opts);
}

const OPTS = { maxTokens: 100, overlapTokens: 20 };

describe("chunkMarkdown basics", () => {
  it("returns nothing for empty or blank files", () => {
    expect(chunkMarkdown("", OPTS)).toEqual([]);
    expect(chunkMarkdown("\n\n   \n\t\n", OPTS)).toEqual([]);
  });

  it("keeps a small file as one chunk with exact lines, trimming blank edges", () => {
    const text = "\n# Daily log\n\n- met Alice\n- fixed the watcher\n\n";
    expect(chunkFile("small.md", text, OPTS)).toEqual([
      { text: "# Daily log\n\n- met Alice\n- fixed the watcher", startLine: 2, endLine: 5 },
    ]);
  });

  it("does not count a trailing newline as a line", () => {
    expect(chunkMarkdown("one\ntwo\n", OPTS)).toEqual([{ text: "one\ntwo", startLine: 1, endLine: 2 }]);
  });

  it("handles CRLF like LF and strips \\r", () => {
    const lines = Array.from({ length: 30 }, (_, i) =>
      i % 6 === 5 ? "" : words(`L${String(i + 1).padStart(2, "0")}`, 10),
    );
    const lf = chunkMarkdown(lines.join("\n"), OPTS);
    const crlf = chunkFile("crlf.md", lines.join("\r\n") + "\r\n", OPTS);
    expect(crlf).toEqual(lf);
    for (const c of crlf) expect(c.text).not.toContain("\r");
  });

  it("cuts a plain sequence at the budget and overlaps whole trailing lines", () => {
    // 14 lines of 10 tokens: chunk 1 = lines 1-10 (100 tokens); overlap = lines 9-10 (20).
    const lines = Array.from({ length: 14 }, (_, i) => words(`L${String(i + 1).padStart(2, "0")}`, 10));
    const chunks = chunkMarkdown(lines.join("\n"), OPTS);
    expect(spans(chunks)).toEqual([
      [1, 10],
      [9, 14],
    ]);
    expect(chunks[0]!.text).toBe(lines.slice(0, 10).join("\n"));
    expect(chunks[1]!.text).toBe(lines.slice(8).join("\n"));
    expect(chunks[1]!.text.startsWith(lines[8]!)).toBe(true);
  });

  it("adds no overlap when overlapTokens is 0", () => {
    const lines = Array.from({ length: 14 }, (_, i) => words(`L${String(i + 1).padStart(2, "0")}`, 10));
    expect(spans(chunkMarkdown(lines.join("\n"), { maxTokens: 100, overlapTokens: 0 }))).toEqual([
      [1, 10],
      [11, 14],
    ]);
  });
});

describe("split point preference", () => {
  const body = (n: number, from = 1) =>
    Array.from({ length: n }, (_, i) => words(`L${String(from + i).padStart(2, "0")}`, 10));

  it("splits before a heading in the tail of the budget and does not overlap into it", () => {
    const lines = [...body(7), "## Next section", ...body(6, 9)];
    const chunks = chunkMarkdown(lines.join("\n"), OPTS);
    expect(spans(chunks)).toEqual([
      [1, 7],
      [8, 14],
    ]);
    expect(chunks[1]!.text.startsWith("## Next section\n")).toBe(true);
  });

  it("ignores a heading too early in the budget rather than making a tiny chunk", () => {
    const lines = [...body(2), "## Early", ...body(12, 4)];
    const chunks = chunkMarkdown(lines.join("\n"), OPTS);
    expect(chunks[0]!.startLine).toBe(1);
    expect(chunks[0]!.endLine).toBeGreaterThanOrEqual(9);
  });

  it("prefers a heading over a later blank line", () => {
    const lines = [...body(7), "## Heading", ...body(1, 9), "", ...body(5, 11)];
    expect(chunkMarkdown(lines.join("\n"), OPTS)[0]!.endLine).toBe(7);
  });

  it("splits at a blank line, overlapping the last lines before it", () => {
    const lines = [...body(7), "", ...body(6, 9)];
    const chunks = chunkMarkdown(lines.join("\n"), OPTS);
    expect(spans(chunks)).toEqual([
      [1, 7],
      [7, 14],
    ]);
    expect(chunks[1]!.text.startsWith(`${lines[6]}\n\n${lines[8]}`)).toBe(true);
  });

  it("prefers a list item over an arbitrary line", () => {
    const lines = [...body(8), `- ${words("L09", 9)}`, ...body(5, 10)];
    const chunks = chunkMarkdown(lines.join("\n"), OPTS);
    expect(chunks[0]).toMatchObject({ startLine: 1, endLine: 8 });
    expect(chunks[1]).toMatchObject({ startLine: 7, endLine: 14 });
  });
});

describe("fenced code", () => {
  const fenceDoc = (codeLines: number, marker = "```") => [
    words("T01", 10),
    words("T02", 10),
    `${marker}ts`,
    ...Array.from({ length: codeLines }, (_, i) => words(`C${String(i + 1).padStart(2, "0")}`, 10)),
    marker,
    words("T03", 10),
    words("T04", 10),
  ];

  it("never splits a fence that fits in 4 × maxTokens", () => {
    const lines = fenceDoc(6); // fence = lines 3-10, ~63 tokens > maxTokens 40
    expect(spans(chunkMarkdown(lines.join("\n"), { maxTokens: 40, overlapTokens: 0 }))).toEqual([
      [1, 2],
      [3, 10],
      [11, 12],
    ]);
    const withOverlap = chunkMarkdown(lines.join("\n"), { maxTokens: 40, overlapTokens: 10 });
    expect(spans(withOverlap)).toEqual([
      [1, 2],
      [2, 10],
      [11, 12],
    ]);
    expect(withOverlap[1]!.text).toBe(lines.slice(1, 10).join("\n"));
  });

  it("tracks fence length and character like CommonMark", () => {
    const lines = [
      words("T01", 10),
      "~~~~",
      words("C01", 10),
      "```", // not a closer: different char
      words("C02", 10),
      "~~~", // not a closer: shorter
      words("C03", 10),
      "~~~~",
      words("T02", 10),
    ];
    const chunks = chunkMarkdown(lines.join("\n"), { maxTokens: 20, overlapTokens: 0 });
    expect(chunks.some((c) => c.startLine === 2 && c.endLine === 8)).toBe(true);
    for (const c of chunks) {
      expect(c.startLine <= 2 || c.startLine > 8).toBe(true);
      expect(c.endLine < 2 || c.endLine >= 8).toBe(true);
    }
  });

  it("splits inside a fence only when it exceeds 4 × maxTokens", () => {
    const lines = fenceDoc(20); // fence ≈ 203 tokens > 4 × 40
    const chunks = chunkMarkdown(lines.join("\n"), { maxTokens: 40, overlapTokens: 0 });
    expect(chunks.some((c) => c.startLine > 3 && c.startLine < 24)).toBe(true);
    for (const c of chunks) expect(countTokens(c.text)).toBeLessThanOrEqual(40);
  });

  it("treats an unclosed fence as plain text", () => {
    const lines = ["```", ...Array.from({ length: 30 }, (_, i) => words(`C${String(i + 1).padStart(2, "0")}`, 10))];
    const chunks = chunkMarkdown(lines.join("\n"), { maxTokens: 40, overlapTokens: 0 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) expect(countTokens(c.text)).toBeLessThanOrEqual(40);
  });

  it("does not treat headings or list items inside a fence as split points", () => {
    const lines = [
      ...Array.from({ length: 6 }, (_, i) => words(`T${String(i + 1).padStart(2, "0")}`, 10)),
      "```md",
      "## not a heading",
      "- not an item",
      "```",
      ...Array.from({ length: 6 }, (_, i) => words(`U${String(i + 1).padStart(2, "0")}`, 10)),
    ];
    for (const c of chunkMarkdown(lines.join("\n"), OPTS)) {
      expect([8, 9, 10]).not.toContain(c.startLine);
      expect([7, 8, 9]).not.toContain(c.endLine);
    }
  });
});

describe("long lines", () => {
  it("cuts a line over maxTokens into pieces that carry its line number", () => {
    const long = Array.from({ length: 1000 }, (_, i) => `w${i}`).join(" ");
    const lines = ["# Title", "intro line", long, "after line"];
    const chunks = chunkMarkdown(lines.join("\n"), OPTS);
    expect(chunks[0]).toEqual({ text: "# Title\nintro line", startLine: 1, endLine: 2 });
    const pieces = chunks.filter((c) => c.startLine === 3);
    expect(pieces.length).toBeGreaterThan(1);
    for (const p of pieces) {
      expect(p.endLine).toBe(3);
      expect(countTokens(p.text)).toBeLessThanOrEqual(100);
    }
    expect(pieces.map((p) => p.text).join("")).toBe(long);
    expect(chunks.at(-1)).toEqual({ text: "after line", startLine: 4, endLine: 4 });
  });

  it("chunks a 1 MB single line quickly", () => {
    const line = "lorem ipsum dolor sit amet ".repeat(40_000); // ~1 MB
    const t0 = performance.now();
    const chunks = chunkFile("oneline.md", line, { maxTokens: 400, overlapTokens: 80 });
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(chunks.length).toBeGreaterThan(100);
    for (const c of chunks) {
      expect(c).toMatchObject({ startLine: 1, endLine: 1 });
      expect(countTokens(c.text)).toBeLessThanOrEqual(400);
    }
    expect(chunks.map((c) => c.text).join("")).toBe(line);
  });

  it("cuts long CJK lines by CJK token count", () => {
    const line = "今天我们讨论了记忆系统的设计".repeat(100); // 1,400 ideographs
    const chunks = chunkMarkdown(line, { maxTokens: 400, overlapTokens: 80 });
    expect(chunks.map((c) => countTokens(c.text))).toEqual([400, 400, 400, 200]);
  });
});

describe("perEntry (curated files)", () => {
  const memory = [
    "# Memory", // 1
    "", // 2
    "## Preferences", // 3
    "- Prefers TypeScript", // 4
    "  - strict mode always", // 5
    "- Uses vim", // 6
    "  keybindings: default", // 7
    "", // 8
    "A standalone note", // 9
    "spanning two lines.", // 10
    "", // 11
    "## Projects", // 12
    "Body text for projects.", // 13
    "", // 14
    "- cortexd: memory daemon", // 15
    "1. numbered entry", // 16
    "", // 17
    "```", // 18
    "- not an entry", // 19
    "```", // 20
    "### Empty heading", // 21
    "## Next", // 22
    "- last entry", // 23
  ].join("\n");

  it("starts a chunk per heading and top-level item, merging body-less headings", () => {
    const chunks = chunkFile("MEMORY.md", memory, { maxTokens: 400, overlapTokens: 80, perEntry: true });
    expect(chunks).toEqual([
      { text: "# Memory\n\n## Preferences\n- Prefers TypeScript\n  - strict mode always", startLine: 1, endLine: 5 },
      { text: "- Uses vim\n  keybindings: default", startLine: 6, endLine: 7 },
      { text: "A standalone note\nspanning two lines.", startLine: 9, endLine: 10 },
      { text: "## Projects\nBody text for projects.", startLine: 12, endLine: 13 },
      { text: "- cortexd: memory daemon", startLine: 15, endLine: 15 },
      { text: "1. numbered entry", startLine: 16, endLine: 16 },
      { text: "```\n- not an entry\n```", startLine: 18, endLine: 20 },
      { text: "### Empty heading\n## Next\n- last entry", startLine: 21, endLine: 23 },
    ]);
  });

  it("never emits a chunk that is only a heading when an entry follows", () => {
    const text = "## A\n\n- one\n## B\n- two\n- three";
    expect(spans(chunkMarkdown(text, { ...OPTS, perEntry: true }))).toEqual([
      [1, 3],
      [4, 5],
      [6, 6],
    ]);
  });

  it("splits an oversized entry by the normal rules, without overlap into the next entry", () => {
    const nested = Array.from({ length: 12 }, (_, i) => `  ${words(`N${String(i + 1).padStart(2, "0")}`, 10)}`);
    const text = ["- big entry", ...nested, "- small entry"].join("\n");
    const chunks = chunkMarkdown(text, { ...OPTS, perEntry: true });
    expect(chunks.at(-1)).toEqual({ text: "- small entry", startLine: 14, endLine: 14 });
    const big = chunks.slice(0, -1);
    expect(big.length).toBeGreaterThan(1);
    expect(big[0]!.startLine).toBe(1);
    expect(big.at(-1)!.endLine).toBe(13);
    for (const c of big) expect(countTokens(c.text)).toBeLessThanOrEqual(100);
  });

  it("keeps consecutive paragraph lines together in files without list items", () => {
    const text = "Line one of a note.\nLine two of it.\n\nSecond paragraph.";
    expect(chunkMarkdown(text, { ...OPTS, perEntry: true })).toEqual([{ text, startLine: 1, endLine: 4 }]);
  });
});

/** Random documents from realistic line kinds, checked against the chunking invariants. */
describe("invariants (property)", () => {
  const lineArb = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 1, max: 30 }).map((k) => ({ kind: "text", k })) },
    { weight: 3, arbitrary: fc.constant({ kind: "blank", k: 0 }) },
    { weight: 1, arbitrary: fc.constant({ kind: "heading", k: 0 }) },
    { weight: 3, arbitrary: fc.integer({ min: 1, max: 20 }).map((k) => ({ kind: "item", k })) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 8 }).map((k) => ({ kind: "fence", k })) },
    { weight: 1, arbitrary: fc.constant({ kind: "cjk", k: 0 }) },
    { weight: 1, arbitrary: fc.integer({ min: 101, max: 400 }).map((k) => ({ kind: "long", k })) },
  );

  it("chunks are exact, ordered, covering, fence-safe and within budget", () => {
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 80 }), fc.boolean(), (spec, perEntry) => {
        const lines: string[] = [];
        const fences: Array<[number, number]> = []; // 1-based open/close
        const longLines = new Set<number>();
        for (const l of spec) {
          const tag = `L${String(lines.length % 100).padStart(2, "0")}`;
          if (l.kind === "text") lines.push(words(tag, l.k));
          else if (l.kind === "blank") lines.push("");
          else if (l.kind === "heading") lines.push(`## ${tag}`);
          else if (l.kind === "item") lines.push(`- ${words(tag, l.k)}`);
          else if (l.kind === "cjk") lines.push("记忆系统的设计");
          else if (l.kind === "long") {
            lines.push(words(tag, l.k));
            longLines.add(lines.length);
          } else {
            const open = lines.length + 1;
            lines.push("```");
            for (let i = 0; i < l.k; i++) lines.push(words("cod", 5));
            lines.push("```");
            fences.push([open, lines.length]);
          }
        }
        const chunks = chunkMarkdown(lines.join("\n"), { maxTokens: 100, overlapTokens: 20, perEntry });
        let prev: Chunk | undefined;
        for (const c of chunks) {
          expect(c.startLine).toBeGreaterThanOrEqual(1);
          expect(c.endLine).toBeLessThanOrEqual(lines.length);
          expect(c.text.trim()).not.toBe("");
          if (longLines.has(c.startLine) && c.startLine === c.endLine) {
            expect(lines[c.startLine - 1]).toContain(c.text);
          } else {
            expect(c.text).toBe(lines.slice(c.startLine - 1, c.endLine).join("\n"));
          }
          const inFence = fences.some(([o, e]) => c.startLine <= e && c.endLine >= o);
          if (!inFence) expect(countTokens(c.text)).toBeLessThanOrEqual(100);
          for (const [o, e] of fences) {
            expect(c.startLine > o && c.startLine <= e).toBe(false);
            expect(c.endLine >= o && c.endLine < e).toBe(false);
          }
          if (prev) {
            expect(c.startLine).toBeGreaterThanOrEqual(prev.startLine);
            expect(c.endLine).toBeGreaterThanOrEqual(prev.endLine);
            if (c.startLine <= prev.endLine && c.startLine !== c.endLine && !perEntry) {
              const shared = lines.slice(c.startLine - 1, prev.endLine);
              expect(shared.reduce((s, l) => s + countTokens(l), 0)).toBeLessThanOrEqual(20);
            }
          }
          prev = c;
        }
        lines.forEach((line, i) => {
          if (line.trim() === "") return;
          expect(chunks.some((c) => c.startLine <= i + 1 && c.endLine >= i + 1)).toBe(true);
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe("performance", () => {
  it("chunks a 12 MB daily-log style file without pathological slowness", () => {
    const block = [
      "## 09:30 standup",
      "",
      "- discussed the watcher fallback for EMFILE",
      "  - decided on polling every 2 s",
      "- Alice owns the migration",
      "",
      "Notes: the sqlite-vec ABI mismatch shows up on Node 24 builds; pin the prebuilt binary.",
      "```sh",
      "cortexd index --force",
      "```",
      "会议记录：下周发布新版本。",
      "",
    ].join("\n");
    const text = (block + "\n").repeat(Math.ceil(12_000_000 / (block.length + 1)));
    const t0 = performance.now();
    const chunks = chunkMarkdown(text, { maxTokens: 400, overlapTokens: 80 });
    const ms = performance.now() - t0;
    expect(ms).toBeLessThan(5000);
    expect(chunks.length).toBeGreaterThan(5_000);
    expect(chunks.at(-1)!.endLine).toBe(text.split("\n").length - 2); // last line is blank
  });

  it("stays linear on adversarial input (unclosed fences, blank runs)", () => {
    const fences = "```js\nsome code here\n".repeat(200_000);
    const blanks = "\n".repeat(500_000) + "text\n" + "\n".repeat(500_000);
    const t0 = performance.now();
    expect(chunkMarkdown(fences, OPTS).length).toBeGreaterThan(1000);
    expect(chunkMarkdown(blanks, OPTS)).toEqual([{ text: "text", startLine: 500_001, endLine: 500_001 }]);
    expect(performance.now() - t0).toBeLessThan(5000);
  });
});
