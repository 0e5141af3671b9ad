import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { mulberry32 } from "../../src/util/prng.js";

/** Every word of the workspace's markdown files (lower case, letters only, ≥ 2 chars) with its count. */
export function corpusVocabulary(root: string): { words: string[]; counts: number[] } {
  const counts = new Map<string, number>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith(".")) continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".md"))
        for (const w of readFileSync(p, "utf8")
          .toLowerCase()
          .match(/[a-z]{2,}/g) ?? [])
          counts.set(w, (counts.get(w) ?? 0) + 1);
    }
  };
  walk(root);
  const words = [...counts.keys()].sort();
  return { words, counts: words.map((w) => counts.get(w)!) };
}

/**
 * `n` distinct random queries of 2–4 words of the corpus's own vocabulary: each word drawn by its
 * frequency (so common words, stop words included, appear as in text) or, half the time, uniformly
 * from the vocabulary (rare words). No query repeats, so no cache of earlier queries helps.
 */
export function randomQueries(root: string, n: number, seed: number): string[] {
  const { words, counts } = corpusVocabulary(root);
  const cdf = new Float64Array(counts.length);
  let sum = 0;
  counts.forEach((c, i) => (cdf[i] = sum += c));
  const r = mulberry32(seed);
  const byFrequency = (): string => {
    const u = r() * sum;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return words[lo]!;
  };
  const out = new Set<string>();
  for (let tries = 0; out.size < n && tries < n * 100; tries++) {
    const len = 2 + Math.floor(r() * 3);
    const q = Array.from({ length: len }, () => (r() < 0.5 ? byFrequency() : words[Math.floor(r() * words.length)]!));
    out.add(q.join(" "));
  }
  return [...out];
}
