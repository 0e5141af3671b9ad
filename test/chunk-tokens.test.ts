import { describe, expect, it } from "vitest";
import { countTokens, countTokensRange, sliceByTokens } from "../src/ingest/tokens.js";

describe("countTokens", () => {
  it("is zero for empty and whitespace-only text", () => {
    expect(countTokens("")).toBe(0);
    expect(countTokens("   \t  ")).toBe(0);
    expect(countTokens("\u3000\u00a0")).toBe(0);
  });

  it("estimates ~4 characters per token for Latin text", () => {
    // 35 letters + 9 word separators = 44 chars → 11 tokens.
    expect(countTokens("The quick brown fox jumps over the lazy dog")).toBe(11);
    // 1,600 characters of prose ≈ 400 tokens (the reference engine's 400-token chunk).
    const prose = "memory daemon indexes files ".repeat(57).slice(0, 1600);
    expect(countTokens(prose)).toBeGreaterThanOrEqual(380);
    expect(countTokens(prose)).toBeLessThanOrEqual(420);
  });

  it("never counts fewer tokens than words", () => {
    expect(countTokens("a b c d e f g h")).toBe(8);
    expect(countTokens("abc")).toBe(1);
    expect(countTokens("abc abc abc abc abc")).toBe(5);
  });

  it("ignores indentation", () => {
    expect(countTokens("        abc abc")).toBe(countTokens("abc abc"));
  });

  it("counts each CJK ideograph, kana and hangul syllable as one token", () => {
    expect(countTokens("你好世界")).toBe(4);
    expect(countTokens("こんにちは")).toBe(5);
    expect(countTokens("カタカナ")).toBe(4);
    expect(countTokens("안녕하세요")).toBe(5);
    expect(countTokens("我喜欢TypeScript。")).toBe(3 + 3 + 1); // 3 ideographs, "TypeScript" (10+1)/4 → 3, "。"
    expect(countTokens("𠀀𠀁")).toBe(2); // CJK extension B (surrogate pairs)
    expect(countTokens("Hello 世界")).toBe(2 + 2);
  });

  it("counts ranges like slices", () => {
    const text = "alpha beta\n你好 gamma\n\n  delta";
    for (let a = 0; a <= text.length; a++) {
      for (let b = a; b <= text.length; b++) {
        expect(countTokensRange(text, a, b)).toBe(countTokens(text.slice(a, b)));
      }
    }
  });

  it("is fast over a 12 MB corpus", () => {
    const line = "- 2026-11-28 user prefers TypeScript 严格模式 and vitest for tests\n";
    const corpus = line.repeat(Math.ceil(12_000_000 / line.length));
    const t0 = performance.now();
    let total = 0;
    for (let pos = 0; pos < corpus.length;) {
      let end = corpus.indexOf("\n", pos);
      if (end < 0) end = corpus.length;
      total += countTokensRange(corpus, pos, end);
      pos = end + 1;
    }
    expect(total).toBeGreaterThan(0);
    expect(performance.now() - t0).toBeLessThan(5000);
  });
});

describe("sliceByTokens", () => {
  it("cuts into pieces within budget that concatenate back", () => {
    const text = "word ".repeat(5000);
    const pieces = sliceByTokens(text, 100);
    expect(pieces.join("")).toBe(text);
    for (const p of pieces) expect(countTokens(p)).toBeLessThanOrEqual(100);
    expect(pieces.length).toBeGreaterThanOrEqual(50);
    // Cuts happen after whitespace, not inside words.
    for (const p of pieces.slice(0, -1)) expect(p.endsWith(" ")).toBe(true);
  });

  it("handles CJK and text without spaces", () => {
    const cjk = "记忆".repeat(500);
    const pieces = sliceByTokens(cjk, 400);
    expect(pieces.map((p) => countTokens(p))).toEqual([400, 400, 200]);
    expect(pieces.join("")).toBe(cjk);
    const blob = "x".repeat(10_000);
    const blobPieces = sliceByTokens(blob, 400);
    expect(blobPieces.join("")).toBe(blob);
    for (const p of blobPieces) expect(countTokens(p)).toBeLessThanOrEqual(400);
  });

  it("never separates a surrogate pair", () => {
    const text = "😀".repeat(3000);
    for (const p of sliceByTokens(text, 50)) {
      expect(p.charCodeAt(0) >= 0xdc00 && p.charCodeAt(0) <= 0xdfff).toBe(false);
    }
  });
});
