/**
 * The char-code word test (src/util/word-chars.ts) must say what `/[\p{L}\p{N}]/u` says, for
 * every code point: recall's scanners find words with it instead of the expression.
 */
import { describe, expect, it } from "vitest";
import { ASCII_WORD, isWordCp, wordUnitsAt } from "../src/util/word-chars.js";

describe("word characters", () => {
  it("are the letters and digits of the Unicode expression, for every code point", () => {
    const bad: number[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp += cp < 0x30000 ? 1 : 97) {
      if (cp >= 0xd800 && cp < 0xe000) continue;
      const ch = String.fromCodePoint(cp);
      const want = /^[\p{L}\p{N}]$/u.test(ch);
      if (isWordCp(cp) !== want || wordUnitsAt(`${ch}x`, 0) > 0 !== want) bad.push(cp);
      if (cp < 128 && (ASCII_WORD[cp] === 1) !== want) bad.push(cp);
    }
    expect(bad).toEqual([]);
  });

  it("read a surrogate pair whole and a lone surrogate as no word character", () => {
    expect(wordUnitsAt("𝐀", 0)).toBe(2);
    expect(wordUnitsAt("😀", 0)).toBe(0);
    expect(wordUnitsAt("\ud835", 0)).toBe(0);
    expect(wordUnitsAt("\udc00a", 0)).toBe(0);
    expect(wordUnitsAt("é", 0)).toBe(1);
  });
});
