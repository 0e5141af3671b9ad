/**
 * Recall reads each candidate's text once (recall-scan.ts), finding only the words that begin like
 * a query or prompt stem: it must give what the plain computations give — the units of the text,
 * the query stems each unit holds (queryStemMatcher on the unit) and the prompt stems the whole
 * text holds (heldStems) — on random texts with the awkward cases: astral letters, combining
 * marks, lone surrogates, letters whose lowercase is longer (İ), final sigma, other scripts'
 * digits, transcript messages spanning lines.
 */
import { describe, expect, it } from "vitest";
import { units } from "../src/ingest/units.js";
import { contentStems, queryStemMatcher, stem } from "../src/search/excerpt.js";
import { textScanner } from "../src/search/recall-scan.js";
import { heldStems, type PromptWord } from "../src/search/relevance.js";
import { mulberry32 } from "../src/util/prng.js";

const WORDS = [
  "stories",
  "story",
  "the",
  "a",
  "I",
  "x",
  "running",
  "runs",
  "Caroline",
  "café",
  "cafe\u0301",
  "naïve",
  "Zürich",
  "İstanbul",
  "ΟΔΟΣ",
  "οδός",
  "straße",
  "2026",
  "٣٤",
  "x1",
  "ab",
  "abc",
  "abstract",
  "\u{1d400}\u{1d401}",
  "\u{1d400}",
  "\u{20000}x",
  "\ud800",
  "a\udc00b",
  "zero\u200bwidth",
  "hopping",
  "hope",
  "activities",
  "activity",
  "yes",
  "ponies",
  "ties",
  "ies",
];
const SEPARATORS = [" ", " ", " ", ", ", ". ", "-", "_", "'", "/", "\t", "  "];
const LINE_STARTS = ["", "", "- ", "# ", "User: ", "Assistant: ", "   "];

function randomText(r: () => number, lines: number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const out: string[] = [];
  for (let l = 0; l < lines; l++) {
    if (r() < 0.1) {
      out.push(pick(["", "   ", "---"]));
      continue;
    }
    const n = 1 + Math.floor(r() * 8);
    let line = pick(LINE_STARTS);
    for (let i = 0; i < n; i++) line += (i ? pick(SEPARATORS) : "") + pick(WORDS);
    out.push(line);
  }
  return out.join("\n");
}

describe("recall's one-pass read of a candidate", () => {
  it("gives the units, each unit's query stems and the text's prompt stems of the plain computations", () => {
    const r = mulberry32(1919);
    for (let t = 0; t < 600; t++) {
      const query = randomText(r, 1);
      const queryStems = new Set(contentStems(query));
      // Prompt words as relevance.ts forms them: lowercased, at least two characters, one per stem.
      const promptWords = [
        ...new Set((query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length >= 2)),
      ]
        .map((w) => ({ word: w, stem: stem(w) }) as PromptWord)
        .filter((w, i, all) => all.findIndex((o) => o.stem === w.stem) === i);
      const scan = textScanner({ query: queryStems, prompt: new Set(promptWords.map((w) => w.stem)) });
      const match = queryStemMatcher(queryStems);
      const text = randomText(r, 1 + Math.floor(r() * 12));
      const got = scan(text);
      const us = units(text);
      expect(got.units).toEqual(us);
      expect(got.held.map((s) => [...s].sort())).toEqual(us.map((u) => [...match(u.text)].sort()));
      expect([...got.promptStems].sort()).toEqual([...heldStems(text, { words: promptWords })].sort());
    }
  });

  it("lists each unit's stems in the order the unit's words hold them", () => {
    const scan = textScanner({ query: new Set(["stori", "run", "hope"]), prompt: new Set() });
    const got = scan("hope runs\nrunning stories hope\n\nstory");
    expect(got.held.map((s) => [...s])).toEqual([["hope", "run"], ["run", "stori", "hope"], ["stori"]]);
  });
});
