/**
 * Recall leaves out a memory whose own words mostly repeat one it packed before (|A∩B| / |B| ≥ 0.75
 * for a memory B after a packed A). The shared word map (recall-overlap.ts) must decide what
 * comparing word sets pairwise decides, on random memories that often restate each other.
 */
import { describe, expect, it } from "vitest";
import { wordSet } from "../src/memory-files/dedupe.js";
import { PackedWords } from "../src/search/recall-overlap.js";
import { mulberry32 } from "../src/util/prng.js";

const VOCAB = [
  "deploy",
  "Deploy",
  "friday",
  "tuesday",
  "ops",
  "café",
  "CAFÉ",
  "2026",
  "x1",
  "the",
  "a",
  "standup",
  "notes",
];

/** The share of the candidate's words that the packed memory said. */
function plainOverlap(packed: Set<string>, candidate: Set<string>): number {
  if (packed.size === 0 || candidate.size === 0) return 0;
  let n = 0;
  for (const w of candidate) if (packed.has(w)) n++;
  return n / candidate.size;
}

describe("recall's near-duplicate test", () => {
  it("keeps and drops the memories that pairwise word-set overlap keeps and drops", () => {
    const r = mulberry32(75);
    for (let t = 0; t < 300; t++) {
      const packed = new PackedWords(0.75);
      const plain: Set<string>[] = [];
      const base = Array.from({ length: 1 + Math.floor(r() * 8) }, () => VOCAB[Math.floor(r() * VOCAB.length)]!);
      for (let m = 0; m < 12; m++) {
        // Restate the base with a few changes, or say something else, or nothing at all.
        const words =
          r() < 0.1
            ? []
            : r() < 0.6
              ? base.map((w) => (r() < 0.25 ? VOCAB[Math.floor(r() * VOCAB.length)]! : w))
              : Array.from({ length: 1 + Math.floor(r() * 6) }, () => VOCAB[Math.floor(r() * VOCAB.length)]!);
        const text = words.join(r() < 0.5 ? " " : ", ") + (r() < 0.2 ? " — ⏎ …" : "");
        const want = plain.some((p) => plainOverlap(p, wordSet(text)) >= 0.75);
        const got = packed.test(text);
        expect(got.repeats).toBe(want);
        if (!want && r() < 0.8) {
          got.keep();
          plain.push(wordSet(text));
        }
      }
    }
  });

  it("keeps a memory that restates a packed one and says more (a changed value)", () => {
    const packed = new PackedWords(0.75);
    packed.test("The staging database lives on db-stage-02.").keep();
    expect(packed.test("Moved the staging database to db-stage-05 after the disk failure on 02.").repeats).toBe(false);
    expect(packed.test("the staging database lives on db-stage-02").repeats).toBe(true);
    expect(packed.test("staging database on db-stage-02").repeats).toBe(true);
  });

  it("decides the same for memories of many distinct words (the word table grows)", () => {
    const r = mulberry32(76);
    const word = () => `w${Math.floor(r() * 3000)}${r() < 0.1 ? "é𝐀" : ""}`;
    const packed = new PackedWords(0.75);
    const plain: Set<string>[] = [];
    for (let m = 0; m < 40; m++) {
      const text =
        m > 0 && r() < 0.4
          ? [...plain[Math.floor(r() * plain.length)]!].map((w) => (r() < 0.2 ? word() : w)).join(" ")
          : Array.from({ length: 50 + Math.floor(r() * 400) }, word).join(" ");
      const want = plain.some((p) => plainOverlap(p, wordSet(text)) >= 0.75);
      const got = packed.test(text);
      expect(got.repeats).toBe(want);
      if (!want) {
        got.keep();
        plain.push(wordSet(text));
      }
    }
  });
});
