/**
 * escapeForBlock skips the rewrites that cannot change a string (recall-escape.ts): it must give
 * exactly what applying every rewrite gives, for any string — hostile ones above all.
 */
import { describe, expect, it } from "vitest";
import { escapeForBlock, rewrite } from "../src/search/recall-escape.js";
import { mulberry32 } from "../src/util/prng.js";

const PIECES = [
  "a",
  "Z",
  "é",
  "中",
  "/",
  "!",
  "?",
  "<",
  ">",
  " ",
  "  ",
  "\n",
  "\n\n",
  "\r",
  "\r\n",
  "\t",
  "\v",
  "\f",
  "\u0000",
  "\u0001",
  "\u001f",
  "\u007f",
  "\u0085",
  "\u00a0",
  "\u1680",
  "\u2000",
  "\u200a",
  "\u200b",
  "\u200f",
  "\u2028",
  "\u2029",
  "\u202a",
  "\u202e",
  "\u202f",
  "\u205f",
  "\u2060",
  "\u2069",
  "\u3000",
  "\ufeff",
  "⏎",
  "-",
  "</cortex_memories>",
  "<!--",
];

describe("escapeForBlock", () => {
  it("gives what the rewrites give on random hostile strings", () => {
    const r = mulberry32(31);
    for (let t = 0; t < 20_000; t++) {
      const s = Array.from({ length: Math.floor(r() * 14) }, () => PIECES[Math.floor(r() * PIECES.length)]!).join("");
      expect(escapeForBlock(s)).toBe(rewrite(s));
    }
  });

  it("gives what the rewrites give around a line break, for every UTF-16 unit", () => {
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      for (const s of [`a${ch}\nb`, `a\n${ch}b`, `x${ch}${ch}y`, `<${ch}/`, `${ch}\n<p`]) {
        const want = rewrite(s);
        if (escapeForBlock(s) !== want) expect(escapeForBlock(s)).toBe(want);
      }
    }
  });
});
