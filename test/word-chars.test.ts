/**
 * The char-code word scanner (src/search/word-chars.ts) must find exactly the words
 * `/[\p{L}\p{N}]+/gu` finds, on text with every kind of character a memory can hold.
 */
import { describe, expect, it } from "vitest";
import { nextWordStart, wordEnd } from "../src/search/word-chars.js";
import { mulberry32 } from "../src/util/prng.js";

const PIECES = [
  "a",
  "Z",
  "9",
  " ",
  "\n",
  "-",
  "_",
  "é",
  "É",
  "ß",
  "·",
  "…",
  "中",
  "٣",
  "😀",
  "𝐀",
  "\ud800",
  "\udc00",
  "'",
  "ǅ",
  "\u0301",
];

function scanned(s: string): string[] {
  const out: string[] = [];
  for (let at = nextWordStart(s, 0); at !== -1;) {
    const end = wordEnd(s, at);
    out.push(s.slice(at, end));
    at = nextWordStart(s, end);
  }
  return out;
}

describe("word scanner", () => {
  it("finds the words the Unicode expression finds", () => {
    const r = mulberry32(19);
    for (let t = 0; t < 2000; t++) {
      const s = Array.from({ length: Math.floor(r() * 40) }, () => PIECES[Math.floor(r() * PIECES.length)]!).join("");
      expect(scanned(s)).toEqual(s.match(/[\p{L}\p{N}]+/gu) ?? []);
    }
  });
});
