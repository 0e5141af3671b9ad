import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jaccardAtLeast, mmr, textTokenHashes, tokenSignatureOf } from "../src/search/stages.js";
import type { Candidate } from "../src/search/types.js";

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

/**
 * MMR by its definition: full Jaccard of token sets for every pair (texts whose lengths differ by
 * more than the threshold's ratio are never near-duplicates), no other shortcut.
 */
function referenceMmr(ranked: Candidate[], texts: Map<number, string>, lambda: number, window: number, t: number) {
  const head = ranked.slice(0, window);
  const sets = new Map(head.map((c) => [c.id, reference(texts.get(c.id)!)]));
  const sim = (a: number, b: number) => {
    const [la, lb] = [texts.get(a)!.length, texts.get(b)!.length];
    if (Math.min(la, lb) < t * Math.max(la, lb)) return 0;
    const x = sets.get(a)!;
    const y = sets.get(b)!;
    if (x.size === 0 && y.size === 0) return 1;
    let inter = 0;
    for (const h of x) if (y.has(h)) inter++;
    return inter / (x.size + y.size - inter);
  };
  const picked: Candidate[] = [];
  const left = [...head];
  while (left.length) {
    let best = 0;
    let bestVal = -Infinity;
    left.forEach((c, i) => {
      let m = 0;
      for (const p of picked) {
        const s = sim(c.id, p.id);
        if (s >= t) m = Math.max(m, s);
      }
      const val = lambda * c.score - (1 - lambda) * m;
      if (val > bestVal) {
        bestVal = val;
        best = i;
      }
    });
    picked.push(left.splice(best, 1)[0]!);
  }
  return [...picked, ...ranked.slice(window)].map((c) => c.id);
}

describe("MMR", () => {
  it("orders as its definition does (full Jaccard of every pair), near-duplicates and all", () => {
    // Up to ~100 distinct words a text, so the early stop of the merge is exercised.
    const text = fc
      .array(fc.integer({ min: 0, max: 120 }), { minLength: 0, maxLength: 150 })
      .map((ns) => ns.map((n) => `w${n}`).join(" "));
    const cands = fc.array(fc.tuple(text, fc.double({ min: 0, max: 1, noNaN: true })), { minLength: 3, maxLength: 40 });
    fc.assert(
      fc.property(cands, fc.constantFrom(0.3, 0.5, 0.8), fc.integer({ min: 3, max: 45 }), (list, t, window) => {
        const ranked: Candidate[] = list
          .map(([, score], i) => ({ id: i + 1, score, textScore: 0, vectorScore: 0, explain: {} }))
          .sort((a, b) => b.score - a.score || a.id - b.id);
        const texts = new Map(list.map(([x], i) => [i + 1, x]));
        // Copies of some texts, so that near-duplicates are common.
        for (const [id, x] of texts) if (id % 3 === 0) texts.set(id, texts.get(Math.max(1, id - 1)) ?? x);
        const rows = new Map([...texts].map(([id, x]) => [id, { text: x, hash: `h${x}` }]));
        const got = mmr(ranked, rows, 0.7, window, t).map((c) => c.id);
        expect(got).toEqual(referenceMmr(ranked, texts, 0.7, window, t));
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it("rules a pair out by its bit maps only when its Jaccard is below the threshold, at any set size", () => {
    // Sets from a few hashes to ~2,000 (the 1,024-bit maps saturate), sharing a chosen part.
    const pair = fc
      .tuple(
        fc.integer({ min: 0, max: 2000 }),
        fc.integer({ min: 0, max: 2000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer(),
      )
      .map(([na, nb, share, seed]) => {
        let x = seed | 1;
        const next = () => (x = Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) ^ Math.imul(x, 0x297a2d39)) | 0;
        const a = new Set<number>();
        while (a.size < na) a.add(next());
        const b = new Set<number>([...a].slice(0, Math.floor(share * Math.min(na, nb))));
        while (b.size < nb) b.add(next());
        return [a, b] as const;
      });
    fc.assert(
      fc.property(pair, fc.constantFrom(0.1, 0.3, 0.5, 0.8, 1), ([a, b], t) => {
        const inter = [...a].filter((h) => b.has(h)).length;
        const exact = a.size + b.size === 0 ? 1 : inter / (a.size + b.size - inter);
        const sig = (s: Set<number>) => tokenSignatureOf(Int32Array.from(s).sort());
        const got = jaccardAtLeast(sig(a), sig(b), t);
        if (exact >= t) expect(got).toBe(exact);
        else expect(got).toBeLessThan(t);
      }),
      { numRuns: 400, seed: 11 },
    );
  });

  it("orders families of near-duplicates as its definition does: each candidate's closest pick counts", () => {
    // Variants of a few texts (some words replaced), with close scores, so which pick a candidate is
    // most similar to, and by how much, decides the order.
    const family = fc.tuple(
      fc.array(fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 20, maxLength: 70 }), {
        minLength: 1,
        maxLength: 3,
      }),
      fc.array(
        fc.tuple(
          fc.nat(),
          fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 400 })), { maxLength: 20 }),
          fc.double({ min: 0.5, max: 0.6, noNaN: true }),
        ),
        { minLength: 3, maxLength: 40 },
      ),
    );
    fc.assert(
      fc.property(family, fc.constantFrom(0.3, 0.5, 0.6), ([bases, variants], t) => {
        const list = variants.map(([b, edits, score]) => {
          const words = [...bases[b % bases.length]!];
          for (const [at, w] of edits) words[at % words.length] = w;
          return [words.map((n) => `w${n}`).join(" "), score] as const;
        });
        const ranked: Candidate[] = list
          .map(([, score], i) => ({ id: i + 1, score, textScore: 0, vectorScore: 0, explain: {} }))
          .sort((a, b) => b.score - a.score || a.id - b.id);
        const texts = new Map(list.map(([x], i) => [i + 1, x]));
        const rows = new Map([...texts].map(([id, x]) => [id, { text: x, hash: `f${x}` }]));
        expect(mmr(ranked, rows, 0.7, 40, t).map((c) => c.id)).toEqual(referenceMmr(ranked, texts, 0.7, 40, t));
      }),
      { numRuns: 300, seed: 5 },
    );
  });
});
