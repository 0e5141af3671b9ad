import type { SearchConfig } from "../config/schema.js";
import type { ChunkMeta, ChunkRow } from "../index/repos/store.js";
import type { Candidate } from "./types.js";
import { popcount } from "../util/popcount.js";
import { FNV_OFFSET, FNV_PRIME, isWordCp } from "../util/word-chars.js";

/** BM25 rank (negative, lower is better) → a score in (0, 1): `half` is the BM25 score that maps to 0.5. */
export function bm25ToScore(rank: number, half = 1): number {
  const r = Math.max(0, -rank);
  return r / (half + r);
}

/** Cosine distance (0..2) → similarity score clamped to [0, 1]. */
export function distanceToScore(distance: number): number {
  return Math.max(0, Math.min(1, 1 - distance));
}

export function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

/**
 * Stage "fusion". weighted: (wv·vector + wt·keyword) / (wv + wt) over the legs that ran.
 * rrf: Σ 1/(k + rank) over the legs, scaled so rank 1 in every leg scores 1.
 */
export function fuse(cands: Candidate[], cfg: SearchConfig, legs: { vector: boolean; keyword: boolean }): void {
  if (cfg.fusion === "rrf") {
    const rankOf = (key: "textScore" | "vectorScore") => {
      const ranked = cands.filter((c) => c[key] > 0).sort((a, b) => b[key] - a[key] || a.id - b.id);
      return new Map(ranked.map((c, i) => [c.id, i + 1]));
    };
    const kw = legs.keyword ? rankOf("textScore") : new Map<number, number>();
    const vec = legs.vector ? rankOf("vectorScore") : new Map<number, number>();
    const n = (legs.keyword ? 1 : 0) + (legs.vector ? 1 : 0) || 1;
    for (const c of cands) {
      let s = 0;
      const rk = kw.get(c.id);
      const rv = vec.get(c.id);
      if (rk) s += 1 / (cfg.rrfK + rk);
      if (rv) s += 1 / (cfg.rrfK + rv);
      c.score = (s * (cfg.rrfK + 1)) / n;
      c.explain.fusion = round(c.score);
    }
    return;
  }
  const wv = legs.vector ? cfg.vectorWeight : 0;
  const wt = legs.keyword ? cfg.textWeight : 0;
  const total = wv + wt || 1;
  for (const c of cands) {
    c.score = (wv * c.vectorScore + wt * c.textScore) / total;
    c.explain.fusion = round(c.score);
  }
}

/** 2^(−|age|/halfLife) for dated memories; null for evergreen ones (curated files, undated notes). */
export function recencyDecay(
  row: Pick<ChunkMeta, "class" | "date" | "ts">,
  now: number,
  halfLifeDays: number,
): number | null {
  let t: number | null = null;
  if (row.class === "transcript" && row.ts) t = row.ts;
  else if (row.class === "daily" && row.date) t = Date.parse(`${row.date}T12:00:00Z`);
  if (t === null || Number.isNaN(t)) return null;
  // A memory dated after `now` (recall as of a past date) is as far from it as one before it.
  const ageDays = Math.abs(now - t) / 86_400_000;
  return Math.pow(2, -ageDays / halfLifeDays);
}

/**
 * Stage "recency": a bounded tie-breaker, never a multiplier that could bury an old memory:
 * dated memories get + weight × decay; evergreen ones get + weight × 1 (they never age).
 */
export function applyRecency(
  c: Candidate,
  row: Pick<ChunkMeta, "class" | "date" | "ts">,
  cfg: SearchConfig,
  now: number,
): void {
  if (cfg.recencyWeight === 0) return;
  const d = recencyDecay(row, now, cfg.recencyHalfLifeDays);
  const add = cfg.recencyWeight * (d ?? 1);
  c.score += add;
  c.explain.recency = round(add);
}

/**
 * Stage "importance": `<!-- importance: N -->` in the chunk (read when the chunk was loaded, see
 * index/repos/chunk-meta.ts) multiplies by 1 + step × (N − 5).
 */
export function applyImportance(c: Candidate, row: Pick<ChunkMeta, "importance">, cfg: SearchConfig): void {
  if (row.importance === null || cfg.importanceStep === 0) return;
  const n = Math.max(1, Math.min(10, row.importance));
  const f = 1 + cfg.importanceStep * (n - 5);
  c.score *= f;
  c.explain.importance = round(f);
}

/** Scratch space for one text's token hashes. */
let scratch = new Int32Array(1024);

/**
 * The FNV-1a hashes (over UTF-16 code units) of a text's lowercased letter/digit runs
 * (`text.toLowerCase().match(/[\p{L}\p{N}]+/gu)`), sorted and each once: sets that intersect by
 * merging. One pass, hashed as read; a text with any non-ASCII character is lowercased first, as
 * the definition does, and its non-ASCII code points are classified by the Unicode expression.
 */
export function textTokenHashes(text: string): Int32Array {
  let s = text;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) >= 128) {
      s = text.toLowerCase();
      break;
    }
  }
  let n = 0;
  let h = FNV_OFFSET;
  let inToken = false;
  const push = () => {
    if (n === scratch.length) {
      const more = new Int32Array(n * 2);
      more.set(scratch);
      scratch = more;
    }
    scratch[n++] = h | 0;
    h = FNV_OFFSET;
    inToken = false;
  };
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c < 128) {
      if (c >= 65 && c <= 90) c += 32;
      if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
        h ^= c;
        h = Math.imul(h, FNV_PRIME);
        inToken = true;
      } else if (inToken) push();
      continue;
    }
    const cp = s.codePointAt(i)!;
    const units = cp > 0xffff ? 2 : 1;
    if (isWordCp(cp)) {
      for (let u = 0; u < units; u++) {
        h ^= s.charCodeAt(i + u);
        h = Math.imul(h, FNV_PRIME);
      }
      inToken = true;
    } else if (inToken) push();
    i += units - 1;
  }
  if (inToken) push();
  const sorted = scratch.subarray(0, n).sort();
  let unique = 0;
  for (let i = 0; i < n; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[unique++] = sorted[i]!;
  return sorted.slice(0, unique);
}

/**
 * A text's token set for MMR: its sorted unique hashes, and a 1,024-bit map of them (a hash's top
 * ten bits pick its bit) with `spare`, how many hashes share their bit with another. Two sets
 * share at most popcount(bitsA & bitsB) + min(spareA, spareB) hashes (each common bit holds at
 * most one shared hash more than the hashes beyond the first on it), so most pairs of a window,
 * which are far from near-duplicates, are ruled out by 32 word ANDs instead of a merge.
 */
interface TokenSignature {
  hashes: Int32Array;
  bits: Int32Array;
  spare: number;
}

const SIGNATURE_WORDS = 32;

export function tokenSignatureOf(hashes: Int32Array): TokenSignature {
  const bits = new Int32Array(SIGNATURE_WORDS);
  for (let i = 0; i < hashes.length; i++) {
    const b = hashes[i]! >>> 22;
    bits[b >>> 5]! |= 1 << (b & 31);
  }
  let set = 0;
  for (let w = 0; w < SIGNATURE_WORDS; w++) set += popcount(bits[w]!);
  return { hashes, bits, spare: hashes.length - set };
}

/** Token-set signatures by chunk content hash (chunks rarely change; this keeps MMR cheap). */
const signatures = new Map<string, TokenSignature>();
const SIGNATURE_CACHE = 20_000;

function tokenSignature(text: string, key: string): TokenSignature {
  const hit = signatures.get(key);
  if (hit) return hit;
  const sig = tokenSignatureOf(textTokenHashes(text));
  if (signatures.size >= SIGNATURE_CACHE) signatures.delete(signatures.keys().next().value!);
  signatures.set(key, sig);
  return sig;
}

/**
 * The token-Jaccard similarity of two signatures when it is at least `threshold`, else some value
 * below it (exact): the bit maps' bound on the shared hashes first, then a merge that stops once
 * even every remaining hash matching could not reach the threshold.
 */
export function jaccardAtLeast(sa: TokenSignature, sb: TokenSignature, threshold: number): number {
  const a = sa.hashes;
  const b = sb.hashes;
  if (a.length === 0 && b.length === 0) return 1;
  let common = 0;
  for (let w = 0; w < SIGNATURE_WORDS; w++) common += popcount(sa.bits[w]! & sb.bits[w]!);
  const most = Math.min(common + Math.min(sa.spare, sb.spare), a.length, b.length);
  // The similarity rises with the shared count: the bound's value below the threshold rules the pair out.
  if (most / (a.length + b.length - most) < threshold) return 0;
  let i = 0;
  let j = 0;
  let inter = 0;
  const na = a.length;
  const nb = b.length;
  while (i < na && j < nb) {
    if (((i + j) & 31) === 0) {
      const left = inter + Math.min(na - i, nb - j);
      if (left < threshold * (na + nb - left)) return 0;
    }
    const x = a[i]!;
    const y = b[j]!;
    // Branch-free steps: which side moves is data, not a jump the processor must guess.
    inter += +(x === y);
    i += +(x <= y);
    j += +(x >= y);
  }
  return inter / (a.length + b.length - inter);
}

/**
 * Stage "mmr": re-orders the ranked list so each next pick maximises
 * λ·score − (1−λ)·(max token-Jaccard similarity to the picks so far, counted when ≥ threshold):
 * five near-identical daily-log lines no longer fill the top, while memories that merely share a
 * topic keep their order. Only the first `window` candidates are re-ordered.
 */
export function mmr(
  ranked: Candidate[],
  rows: ReadonlyMap<number, Pick<ChunkRow, "text" | "hash">>,
  lambda: number,
  window: number,
  threshold = 0.5,
): Candidate[] {
  if (lambda >= 1 || ranked.length < 3) return ranked;
  const head = ranked.slice(0, window);
  const tail = ranked.slice(window);
  const n = head.length;
  const lengths = head.map((c) => rows.get(c.id)?.text.length ?? 0);
  const sigs: (TokenSignature | undefined)[] = new Array<TokenSignature | undefined>(n);
  const setOf = (i: number): TokenSignature => {
    const row = rows.get(head[i]!.id);
    return (sigs[i] ??= tokenSignature(row?.text ?? "", row?.hash ?? String(head[i]!.id)));
  };
  const picked: Candidate[] = [];
  const left = head.map((_, i) => i);
  // Max similarity of each remaining candidate to the picks, updated incrementally per pick.
  const maxSim = new Float64Array(n);
  while (left.length) {
    let best = 0;
    let bestVal = -Infinity;
    for (let k = 0; k < left.length; k++) {
      const i = left[k]!;
      const val = lambda * head[i]!.score - (1 - lambda) * maxSim[i]!;
      if (val > bestVal) {
        bestVal = val;
        best = k;
      }
    }
    const ci = left.splice(best, 1)[0]!;
    const c = head[ci]!;
    if (picked.length > 0) c.explain.mmr = round(bestVal - lambda * c.score);
    picked.push(c);
    const cl = lengths[ci]!;
    for (const oi of left) {
      // Texts of very different lengths cannot be near-duplicates: skip them without tokenizing.
      const ol = lengths[oi]!;
      if (Math.min(ol, cl) < threshold * Math.max(ol, cl)) continue;
      const os = setOf(oi);
      const cs = setOf(ci);
      const on = os.hashes.length;
      const cn = cs.hashes.length;
      // Only a similarity above what this candidate already has from the picks can change it.
      const floor = Math.max(threshold, maxSim[oi]!);
      if (Math.min(on, cn) < floor * Math.max(on, cn)) continue;
      // Only near-duplicates are pushed down: ordinary topical overlap between memories is not.
      const sim = jaccardAtLeast(os, cs, floor);
      if (sim >= threshold && sim > maxSim[oi]!) maxSim[oi] = sim;
    }
  }
  return [...picked, ...tail];
}
