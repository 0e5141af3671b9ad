import { describe, expect, it } from "vitest";
import { chunkFile } from "../src/ingest/chunk-file.js";
import { chunkNoteFrom, resumePointOf, unsafeForResume, type ResumePoint } from "../src/ingest/markdown-resume.js";
import type { Chunk, ChunkerTail, ChunkingOptions } from "../src/ingest/types.js";

/**
 * A markdown log chunked from its resume point after each append gives exactly the chunks of the
 * whole log chunked again (ingest/markdown-resume.ts): random logs of saves, hand-written lines,
 * continuations, headings, blank lines, fences, long lines and visibility tags, appended to in steps.
 */

function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

const WORDS = "heron kestrel plover dunlin sanderling owl wren lark swift tern gull rook".split(" ");

function piece(r: () => number, i: number): string {
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]!).join(" ");
  const tag = () => ["<!-- visibility: private -->", "", "<!-- visibility: group:team -->"][Math.floor(r() * 3)]!;
  const k = r();
  if (k < 0.55)
    return `- ${words(2 + Math.floor(r() * 12))} (${i}) ${r() < 0.8 ? "<!-- visibility: private -->" : tag()}\n`;
  if (k < 0.65) return `- ${words(3)} (${i})\n  ${words(4)} ${tag()}\n`;
  if (k < 0.72) return `\n## Session ${i}\n\n`;
  if (k < 0.78) return "\n";
  if (k < 0.83) return `${words(5)} (${i})\n`;
  if (k < 0.86) return "```\ncode " + words(3) + "\n```\n";
  if (k < 0.88) return `  ${words(3)} ${tag()}\n`;
  if (k < 0.9) return `- ${words(120)} (${i})\n`;
  return `- ${words(6)} (${i}) <!-- visibility: private -->\n`;
}

const strip = (cs: Chunk[]) => cs.map((c) => `${c.startLine}-${c.endLine} ${c.visibility ?? ""} ${c.text}`);

function whole(text: string, opts: ChunkingOptions): { chunks: Chunk[]; resume: ResumePoint | null } {
  let tail: ChunkerTail | null = null;
  const chunks = chunkFile("daily", text, opts, undefined, (t) => (tail = t)).chunks;
  return { chunks, resume: resumePointOf({ text, line: 0, offset: 0, seq: 0 }, tail) };
}

describe("markdown logs re-chunked from their resume point", () => {
  for (const opts of [
    { maxTokens: 40, overlapTokens: 10 },
    { maxTokens: 400, overlapTokens: 80 },
  ]) {
    it(`equal the whole log chunked again (${opts.maxTokens}/${opts.overlapTokens} tokens, 60 logs × 80 appends)`, () => {
      let resumed = 0;
      for (let seed = 1; seed <= 60; seed++) {
        const r = rng(seed);
        let text = "# 2026-12-05\n\n";
        let { chunks, resume } = whole(text, opts);
        for (let step = 0; step < 80; step++) {
          const n = 1 + Math.floor(r() * 3);
          for (let j = 0; j < n; j++) text += piece(r, step * 10 + j);
          const expected = whole(text, opts);
          const tail = resume && Buffer.from(text).subarray(resume.offset).toString("utf8");
          const got = resume && tail !== null && !unsafeForResume(tail) ? chunkNoteFrom(tail, resume, opts) : null;
          if (resume && got) {
            chunks = [...chunks.slice(0, resume.seq), ...got.chunks];
            expect(got.lines, `seed ${seed} step ${step}`).toBe(text.split("\n").length - 1);
            resume = got.resume;
            resumed++;
          } else ({ chunks, resume } = expected);
          expect(strip(chunks), `seed ${seed} step ${step}`).toEqual(strip(expected.chunks));
        }
      }
      console.log(`${opts.maxTokens}/${opts.overlapTokens}: ${resumed} of ${60 * 80} appends resumed`);
      // A log with a fence (3 % of these appends) before its last chunk is chunked whole from then on.
      expect(resumed).toBeGreaterThan(60 * 80 * 0.15);
    });
  }

  it("a log of saves resumes at (nearly) every append, and reads a bounded tail", () => {
    const opts = { maxTokens: 400, overlapTokens: 80 };
    let text = "# 2026-12-05\n\n";
    let { chunks, resume } = whole(text, opts);
    let maxTail = 0;
    let wholeAgain = 0;
    for (let i = 0; i < 2000; i++) {
      text += `- 10:${String(i % 60).padStart(2, "0")} saved note ${i} about the heron colony <!-- visibility: private -->\n`;
      const tail = resume && Buffer.from(text).subarray(resume.offset);
      const got = resume && tail ? chunkNoteFrom(tail.toString("utf8"), resume, opts) : null;
      if (got) {
        maxTail = Math.max(maxTail, tail!.length);
        chunks = [...chunks.slice(0, resume!.seq), ...got.chunks];
        resume = got.resume;
      } else {
        wholeAgain++; // the first save: the heading's visibility follows the entries under it
        ({ chunks, resume } = whole(text, opts));
      }
    }
    expect(strip(chunks)).toEqual(strip(whole(text, opts).chunks));
    expect(wholeAgain).toBeLessThanOrEqual(2);
    expect(maxTail).toBeLessThan(8 * 1024); // about one chunk, not the log
  });

  it("no resume point for frontmatter, conflict markers, \\r or a text without its last newline", () => {
    const opts = { maxTokens: 40, overlapTokens: 10 };
    for (const text of [
      "---\nname: x\n---\n- a\n",
      "- a\r\n- b\r\n",
      "- a\n<<<<<<< HEAD\n- b\n=======\n- c\n>>>>>>> x\n",
      "- a\n- b",
    ])
      expect(whole(text, opts).resume, JSON.stringify(text)).toBeNull();
  });
});
