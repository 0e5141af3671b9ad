/**
 * Recall's packing shortcuts give what the plain computations give: the query stems a line holds
 * (stemming only the words that begin like a query stem) and the cleaned text of a memory (each
 * rewrite only on lines holding its trigger). Random texts from a vocabulary with the awkward cases
 * (short words, y/ies endings, capitals, accents, digits, markdown layout).
 */
import { describe, expect, it } from "vitest";
import { cleanMemoryText } from "../src/search/recall-clean.js";
import { contentStems, excerpt, queryStemMatcher } from "../src/search/excerpt.js";
import { mulberry32 } from "../src/util/prng.js";

const WORDS = [
  "ies",
  "aed",
  "ied",
  "ing",
  "sky",
  "skies",
  "happy",
  "happiness",
  "happily",
  "story",
  "stories",
  "the",
  "a",
  "I",
  "is",
  "was",
  "running",
  "runs",
  "ran",
  "generalization",
  "general",
  "relational",
  "relate",
  "Caroline",
  "LGBTQ",
  "café",
  "naïve",
  "Zürich",
  "2026",
  "x1",
  "by",
  "ay",
  "oed",
  "adding",
  "added",
  "add",
  "hopping",
  "hoped",
  "hope",
  "agreed",
  "feed",
  "fed",
  "conditional",
  "condition",
  "activities",
  "activity",
  "kids",
  "kid",
  "bedtime",
  "yes",
  "ok",
  "sses",
  "caresses",
  "ponies",
  "ties",
  "cats",
  "feudalism",
  "be",
  "ai",
  "mm",
  "ii",
  "über",
  "straße",
];
const LAYOUT = ["", "# ", "## ", "- ", "* ", "1. ", "2) ", "> ", "- [ ] ", "- [x] ", "   ", "\t"];
const TAIL = ["", " | ", " · ", "  ", "\u00a0", " <!-- importance: 8 -->", " |", "\t"];

function randomText(r: () => number, lines: number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const out: string[] = [];
  for (let l = 0; l < lines; l++) {
    if (r() < 0.08) {
      out.push(pick(["---", "***", "| a | b |", "|---|---|", ":--- | ---:", "", "<!-- note -->"]));
      continue;
    }
    const n = 1 + Math.floor(r() * 9);
    const words = Array.from({ length: n }, () => pick(WORDS) + (r() < 0.15 ? pick([",", ".", "!", "'s", ""]) : ""));
    out.push(pick(LAYOUT) + words.join(r() < 0.1 ? "  " : " ") + pick(TAIL));
  }
  return out.join("\n");
}

/** cleanMemoryText as written before its shortcuts: every rewrite on every line. */
function cleanReference(text: string): string {
  const noComments = text.replace(/<!--[\s\S]*?(?:-->|$)/g, " ");
  const lines: string[] = [];
  for (const raw of noComments.split("\n")) {
    let l = raw
      .replace(/^\s{0,3}#{1,6}\s+/, "")
      .replace(/^\s*(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?/, "")
      .replace(/^\s*>\s?/, "")
      .replace(/\s*\|\s*/g, (m, at: number) => (at === 0 ? "" : " · "))
      .replace(/(?:\s*·\s*)+$/, "")
      .replace(/[ \t\u00a0]+/g, " ")
      .trim();
    if (/^(?:[-*_=~·]\s*){3,}$/.test(l) || /^:?-{3,}:?(?:\s*·\s*:?-{3,}:?)*$/.test(l)) l = "";
    if (l !== "") lines.push(l);
  }
  return lines.join("\n");
}

describe("recall packing shortcuts", () => {
  it("the query stems a line holds are those of stemming every word", () => {
    const r = mulberry32(19);
    for (let t = 0; t < 400; t++) {
      const query = randomText(r, 1);
      const stems = new Set(contentStems(query));
      const held = queryStemMatcher(stems);
      for (const line of randomText(r, 6).split("\n")) {
        const want = new Set(contentStems(line).filter((s) => stems.has(s)));
        expect([...held(line)].sort()).toEqual([...want].sort());
      }
    }
  });

  it("an excerpt is the same whether its line scores are given or computed", () => {
    const r = mulberry32(23);
    for (let t = 0; t < 200; t++) {
      const text = randomText(r, 12);
      const stems = new Set(contentStems(randomText(r, 1)));
      const idf = (s: string) => 1 + (s.length % 3);
      // The plain way: score each line by stemming all its words.
      const plain = excerpt(text, stems, idf, undefined, undefined, {
        units: text
          .split("\n")
          .map((l, i) => ({ text: l, line: i, lines: 1 }))
          .filter((u) => u.text.trim() !== ""),
        held: text
          .split("\n")
          .filter((l) => l.trim() !== "")
          .map((l) => new Set(contentStems(l).filter((s) => stems.has(s)))),
      });
      expect(excerpt(text, stems, idf)).toEqual(plain);
    }
  });

  it("cleaning a memory gives what every rewrite on every line gives", () => {
    const r = mulberry32(29);
    for (let t = 0; t < 1000; t++) {
      const text = randomText(r, 1 + Math.floor(r() * 10));
      expect(cleanMemoryText(text)).toBe(cleanReference(text));
    }
  });
});
