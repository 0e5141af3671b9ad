import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readLineWindow } from "../src/util/read-lines.js";
import { tempDir } from "./helpers/workspace.js";

/** What memory.get returned before it streamed: the whole file split into lines. */
function bySplit(text: string, from: number, count: number): { lines: string[]; totalLines: number } {
  const all = text.split(/\r?\n/);
  if (all.length > 1 && all[all.length - 1] === "") all.pop();
  return { lines: all.slice(from - 1, from - 1 + count), totalLines: all.length };
}

describe("readLineWindow (memory.get reads only the lines it returns)", () => {
  it("gives the lines and line count that splitting the whole file gives", async () => {
    const dir = tempDir();
    const file = join(dir, "f.md");
    const piece = fc.constantFrom("a", "é", "日本", "\n", "\r\n", "\r", " ", "😀", "line");
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 60 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 30 }),
        async (parts, from, count) => {
          const text = parts.join("");
          writeFileSync(file, text);
          const got = await readLineWindow(file, { maxBytes: 1 << 20, from, count, maxChars: 1_000_000 });
          expect(got).toEqual(bySplit(text, from, count));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps lines across 64 KiB chunk boundaries (multi-byte characters split between reads) and cuts long lines at maxChars + 2", async () => {
    const dir = tempDir();
    const file = join(dir, "big.md");
    const lines = Array.from({ length: 3000 }, (_, i) => `${i} ${"é日😀".repeat((i * 7) % 50)}`);
    const text = lines.join("\n") + "\n" + "x".repeat(200_000);
    writeFileSync(file, text);
    const got = await readLineWindow(file, { maxBytes: 1 << 24, from: 1500, count: 200, maxChars: 1_000_000 });
    expect(got).toEqual(bySplit(text, 1500, 200));
    const tail = await readLineWindow(file, { maxBytes: 1 << 24, from: 3001, count: 5, maxChars: 100 });
    expect(tail).toEqual({ lines: ["x".repeat(102)], totalLines: 3001 });
  });

  it("stops keeping lines once maxChars is passed", async () => {
    const dir = tempDir();
    const file = join(dir, "many.md");
    writeFileSync(file, Array.from({ length: 1000 }, () => "y".repeat(99)).join("\n"));
    const got = await readLineWindow(file, { maxBytes: 1 << 20, from: 1, count: 1000, maxChars: 1000 });
    expect(got.totalLines).toBe(1000);
    expect(got.lines.length).toBe(11); // the one that passes the limit is kept (memory.get cuts there)
  });
});
