import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { textTokenHashes } from "../src/search/stages.js";

/** The definition MMR's near-duplicate test relies on: FNV-1a of each lowercased `[\p{L}\p{N}]+` run. */
function reference(text: string): Set<number> {
  const out = new Set<number>();
  for (const t of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = 0x811c9dc5;
    for (let i = 0; i < t.length; i++) {
      h ^= t.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    out.add(h | 0);
  }
  return out;
}

describe("MMR token signatures", () => {
  it("hash the same tokens as the Unicode definition, for ASCII text (the fast path) and any other", () => {
    const ascii = fc.string({ unit: fc.constantFrom(..."aZ09 _-.,\n\tQxy#é".split("").slice(0, 16)), maxLength: 80 });
    const any = fc.string({ unit: "grapheme", maxLength: 40 });
    fc.assert(
      fc.property(fc.oneof(ascii, any), (text) => {
        expect([...textTokenHashes(text)].sort()).toEqual([...reference(text)].sort());
      }),
      { numRuns: 2000, seed: 3 },
    );
    expect([...textTokenHashes("Kayak KAYAK kayak, 2026-03-14")].length).toBe(4);
  });
});
