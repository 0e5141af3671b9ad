import { mulberry32 } from "../util/prng.js";
import { bodyText, newer, type DailyEntry } from "./entries.js";
import { lowerWords } from "../util/word-chars.js";

/** Near-identical: the same memory written again (grouped; recall shows the newest and a count). */
export const DUPLICATE_COSINE = 0.92;
/** Similar: entries that restate each other and reinforce each other. */
export const REINFORCE_COSINE = 0.8;

export interface SimilarPair {
  a: number;
  b: number;
  cosine: number;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

const EXACT_LIMIT = 2500;
const TABLES = 16;
const BITS = 10;
const MAX_BUCKET = 200;

export interface Similarity {
  /** Pairs at or above DUPLICATE_COSINE. */
  pairs: SimilarPair[];
  /** Per entry: how many entries in other daily logs are similar (REINFORCE_COSINE ≤ cosine < DUPLICATE_COSINE). */
  reinforcement: Map<number, number>;
}

/**
 * Pairs of entries (indexes into `entries`) with cosine ≥ 0.92, and reinforcement counts for 0.80–0.92.
 * Exact all-pairs for small sets;
 * above that, random-hyperplane LSH (seeded, so deterministic: 16 tables × 10 bits) proposes the
 * candidates over centred vectors and every proposed pair is checked exactly (a pair at 0.92 is
 * found with probability ≈ 0.98 on uncentred data; a pair at 0.80 with ≈ 0.7).
 */
export async function similarPairs(entries: readonly DailyEntry[]): Promise<Similarity> {
  const pause = () => new Promise<void>((r) => setImmediate(r));
  const out: SimilarPair[] = [];
  const reinforcement = new Map<number, number>();
  // Only duplicates are kept as pairs; similar entries are just counted (bounded memory).
  const found = (a: number, b: number, c: number) => {
    if (c >= DUPLICATE_COSINE) out.push({ a, b, cosine: c });
    else if (c >= REINFORCE_COSINE && entries[a]!.path !== entries[b]!.path) {
      reinforcement.set(a, (reinforcement.get(a) ?? 0) + 1);
      reinforcement.set(b, (reinforcement.get(b) ?? 0) + 1);
    }
  };
  const idx = entries.map((e, i) => (e.vector ? i : -1)).filter((i) => i >= 0);
  if (idx.length < 2) return { pairs: out, reinforcement };
  if (idx.length <= EXACT_LIMIT) {
    for (let x = 0; x < idx.length; x++) {
      if (x % 200 === 199) await pause(); // let searches in between
      const va = entries[idx[x]!]!.vector!;
      for (let y = x + 1; y < idx.length; y++) {
        const vb = entries[idx[y]!]!.vector!;
        if (va.length !== vb.length) continue;
        found(idx[x]!, idx[y]!, dot(va, vb));
      }
    }
    return { pairs: out, reinforcement };
  }
  const dims = entries[idx[0]!]!.vector!.length;
  // Hash centred vectors: embeddings of one corpus share a common direction, and hyperplanes
  // through the origin would put nearly everything in the same few buckets.
  const mean = new Float32Array(dims);
  for (const i of idx) {
    const v = entries[i]!.vector!;
    if (v.length === dims) for (let k = 0; k < dims; k++) mean[k]! += v[k]! / idx.length;
  }
  const rand = mulberry32(0x5eed);
  const planes = Array.from({ length: TABLES * BITS }, () => {
    const p = new Float32Array(dims);
    for (let i = 0; i < dims; i++) p[i] = rand() * 2 - 1;
    return p;
  });
  const seen = new Set<number>();
  let ops = 0;
  const n = entries.length;
  for (let t = 0; t < TABLES; t++) {
    await pause();
    const buckets = new Map<number, number[]>();
    for (const i of idx) {
      const v = entries[i]!.vector!;
      if (v.length !== dims) continue;
      let key = 0;
      for (let b = 0; b < BITS; b++) {
        const p = planes[t * BITS + b]!;
        if (dot(v, p) - dot(mean, p) >= 0) key |= 1 << b;
      }
      let list = buckets.get(key);
      if (!list) buckets.set(key, (list = []));
      list.push(i);
    }
    for (const list of buckets.values()) {
      // A huge bucket (very similar corpus) is bounded: its members are compared with neighbours only.
      for (let x = 0; x < list.length; x++) {
        const end = list.length > MAX_BUCKET ? Math.min(list.length, x + MAX_BUCKET) : list.length;
        const va = entries[list[x]!]!.vector!;
        for (let y = x + 1; y < end; y++) {
          const a = list[x]!;
          const b = list[y]!;
          const key = a * n + b;
          if (seen.has(key)) continue;
          seen.add(key);
          found(a, b, dot(va, entries[b]!.vector!));
          if (++ops % 5_000 === 0) await pause(); // a few ms of work at a time: searches stay fast
        }
      }
    }
  }
  return { pairs: out, reinforcement };
}

export interface DuplicateGroup {
  /** Index of the newest entry (the one recall shows). */
  canonical: number;
  members: number[];
}

/** Word overlap |A∩B| / min(|A|,|B|) required on top of the cosine: duplicates say mostly the same words. */
export const DUPLICATE_WORD_OVERLAP = 0.75;

/** The distinct words of an entry as sorted word ids (interned in `vocab`). */
function wordIds(text: string, vocab: Map<string, number>): Int32Array {
  const ids = new Set<number>();
  for (const w of lowerWords(bodyText(text))) {
    let id = vocab.get(w);
    if (id === undefined) vocab.set(w, (id = vocab.size));
    ids.add(id);
  }
  return Int32Array.from(ids).sort();
}

/** |A∩B| / min(|A|,|B|) over sorted id arrays (merge walk). */
function wordOverlap(a: Int32Array, b: Int32Array): number {
  if (a.length === 0 || b.length === 0) return 0;
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      n++;
      i++;
      j++;
    } else if (a[i]! < b[j]!) i++;
    else j++;
  }
  return n / Math.min(a.length, b.length);
}

/**
 * Duplicate groups across different daily logs: pairs with cosine ≥ `threshold` and word overlap
 * ≥ DUPLICATE_WORD_OVERLAP. Star grouping, newest first: the newest entry not yet grouped becomes a
 * canonical and takes every ungrouped entry duplicating *it* (no chaining A≈B≈C → A≈C).
 */
export async function groupDuplicates(
  entries: readonly DailyEntry[],
  pairs: readonly SimilarPair[],
  threshold = DUPLICATE_COSINE,
): Promise<DuplicateGroup[]> {
  const adj = new Map<number, number[]>();
  const vocab = new Map<string, number>();
  const words = new Map<number, Int32Array>();
  const ws = (i: number) => {
    let w = words.get(i);
    if (!w) words.set(i, (w = wordIds(entries[i]!.text, vocab)));
    return w;
  };
  let ops = 0;
  for (const p of pairs) {
    if (++ops % 5_000 === 0) await new Promise<void>((r) => setImmediate(r));
    if (p.cosine < threshold) continue;
    if (entries[p.a]!.path === entries[p.b]!.path) continue; // across daily logs only
    if (wordOverlap(ws(p.a), ws(p.b)) < DUPLICATE_WORD_OVERLAP) continue;
    for (const [x, y] of [
      [p.a, p.b],
      [p.b, p.a],
    ] as const) {
      let l = adj.get(x);
      if (!l) adj.set(x, (l = []));
      l.push(y);
    }
  }
  const order = [...adj.keys()].sort((a, b) =>
    newer(entries[a]!, entries[b]!) ? -1 : newer(entries[b]!, entries[a]!) ? 1 : 0,
  );
  const grouped = new Set<number>();
  const out: DuplicateGroup[] = [];
  for (const c of order) {
    if (grouped.has(c)) continue;
    const members = [c, ...adj.get(c)!.filter((m) => !grouped.has(m))];
    if (members.length < 2) continue;
    for (const m of members) grouped.add(m);
    out.push({ canonical: c, members: [...new Set(members)].sort((a, b) => a - b) });
  }
  return out;
}
