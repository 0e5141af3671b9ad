import { K1, fts5Idf, type KeywordHit } from "./bm25.js";
import type { PostingsView } from "./keyword-postings.js";
import { decodeBlock, MAX_BLOCK } from "./postings-blocks.js";
import { TopKHeap } from "./topk-heap.js";
import { lengthNorm, shortLengths } from "./postings-lengths.js";

/**
 * The exhaustive plan of postings-topk, for queries whose lists are short: every posting of the
 * query's words is scored, each chunk's parts added in query order as FTS5 adds them (a repeated
 * word again), and the best k kept. Two ways, by the index's size (the same answer):
 * - up to MERGE_FROM chunks, into an accumulator by chunk id (scanByScore): the norms and the
 *   accumulator stay in the processor's cache, and this costs least (k 40, p50: 0.11 against
 *   0.19 ms at 29,924 chunks, 0.31 against 0.46 ms at 99,836);
 * - above, by merging the lists (scanByMerge): at 398,887 chunks the accumulator's reads and
 *   writes, far apart over 3 MB, cost more than the merge (p50 ~1.0 against ~1.6 ms).
 */
export function scanTopK(view: PostingsView, tokens: readonly string[], k: number, norm: Float64Array): KeywordHit[] {
  return view.lengths.length >= MERGE_FROM ? scanByMerge(view, tokens, k, norm) : scanByScore(view, tokens, k, norm);
}

/** Chunk ids from which the exhaustive plan merges the lists. */
export const MERGE_FROM = 262_144;

/**
 * The merge: each distinct word's
 * list is decoded whole, then the lists are merged by chunk id (document at a time), so every
 * chunk's parts are added at once, in query order as FTS5 adds them (a repeated word again), and
 * the chunk is offered to a top-k heap. No accumulator indexed by chunk id: at 400k chunks its
 * random reads and writes (twice per chunk, over 3 MB) cost more than the merge of a few lists.
 */
export function scanByMerge(
  view: PostingsView,
  tokens: readonly string[],
  k: number,
  norm: Float64Array,
): KeywordHit[] {
  // The distinct tokens with postings, decoded into one scratch; per phrase in order, its list or -1.
  const slot = new Map<string, number>();
  const starts: number[] = [];
  const ends: number[] = [];
  const idfs: number[] = [];
  const order: number[] = [];
  let total = 0;
  for (const token of tokens) {
    const known = slot.get(token);
    if (known !== undefined) {
      order.push(known);
      continue;
    }
    const list = view.lists.get(token);
    if (!list || list.n === 0) {
      order.push(-1);
      continue;
    }
    slot.set(token, starts.length);
    order.push(starts.length);
    starts.push(total);
    total += list.n;
    ends.push(total);
    idfs.push(fts5Idf(list.n, view.rows, view.ln));
  }
  const m = starts.length;
  if (m === 0 || k <= 0) return [];
  const { ids, tfs } = scratch(total);
  for (const [token, j] of slot) {
    const list = view.lists.get(token)!;
    let at = starts[j]!;
    for (let b = 0; b < list.blocks; b++) at += decodeBlock(list, b, ids.subarray(at), tfs.subarray(at));
  }
  const pos = Int32Array.from(starts);
  const end = Int32Array.from(ends);
  const has = new Uint16Array(m); // the current chunk's count of each list's token (0: absent)
  const idf = Float64Array.from(idfs);
  const phrases = Int32Array.from(order);
  const heap = new TopKHeap(k);
  const short = shortLengths(view);
  const avgdl = view.tokens / view.rows;
  for (;;) {
    let d = 0x7fffffff;
    for (let j = 0; j < m; j++) if (pos[j]! < end[j]! && ids[pos[j]!]! < d) d = ids[pos[j]!]!;
    if (d === 0x7fffffff) break;
    for (let j = 0; j < m; j++) {
      if (pos[j]! < end[j]! && ids[pos[j]!] === d) has[j] = tfs[pos[j]!++]!;
      else has[j] = 0;
    }
    const nd = short ? lengthNorm(short[d]!, avgdl) : norm[d]!;
    let s = 0;
    for (let p = 0; p < phrases.length; p++) {
      const j = phrases[p]!;
      if (j < 0) continue;
      const tf = has[j]!;
      if (tf > 0) s += idf[j]! * ((tf * (K1 + 1.0)) / (tf + nd));
    }
    heap.offer(d, s);
  }
  return heap.hits();
}

/** The decoded lists of one query, reused across queries (grown as needed). */
let shared: { ids: Int32Array; tfs: Uint16Array } | null = null;

function scratch(size: number): { ids: Int32Array; tfs: Uint16Array } {
  // decodeBlock may write up to a whole block past a list's end: room for one more block.
  const need = size + 512;
  if (!shared || shared.ids.length < need) {
    const n = Math.max(need, Math.ceil((shared?.ids.length ?? 0) * 1.5));
    shared = { ids: new Int32Array(n), tfs: new Uint16Array(n) };
  }
  return shared;
}

/** The accumulator's plan: every posting's part added into a typed array by chunk id, then a heap of the best k. */
export function scanByScore(
  view: PostingsView,
  tokens: readonly string[],
  k: number,
  norm: Float64Array,
): KeywordHit[] {
  const acc = accumulator(view.lengths.length);
  const touched = acc.touched;
  const score = acc.score;
  let nTouched = 0;
  for (const token of tokens) {
    const list = view.lists.get(token);
    if (!list) continue;
    const idf = fts5Idf(list.n, view.rows, view.ln);
    for (let b = 0; b < list.blocks; b++) {
      const n = decodeBlock(list, b, blockIds, blockTfs);
      for (let j = 0; j < n; j++) {
        const id = blockIds[j]!;
        const tf = blockTfs[j]!;
        const part = idf * ((tf * (K1 + 1.0)) / (tf + norm[id]!));
        if (score[id] === 0) touched[nTouched++] = id;
        score[id]! += part;
      }
    }
  }
  // A min-heap of the best k so far: its root is the worst kept (lowest score, then highest id).
  const heapIds = new Int32Array(Math.min(k, nTouched));
  const heapScores = new Float64Array(heapIds.length);
  let size = 0;
  const worse = (a: number, b: number) =>
    heapScores[a]! < heapScores[b]! || (heapScores[a] === heapScores[b] && heapIds[a]! > heapIds[b]!);
  const swap = (a: number, b: number) => {
    const i = heapIds[a]!;
    heapIds[a] = heapIds[b]!;
    heapIds[b] = i;
    const s = heapScores[a]!;
    heapScores[a] = heapScores[b]!;
    heapScores[b] = s;
  };
  const siftDown = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < size && worse(l, m)) m = l;
      if (r < size && worse(r, m)) m = r;
      if (m === i) return;
      swap(i, m);
      i = m;
    }
  };
  for (let t = 0; t < nTouched; t++) {
    const id = touched[t]!;
    const s = score[id]!;
    score[id] = 0;
    if (size < heapIds.length) {
      heapIds[size] = id;
      heapScores[size] = s;
      let i = size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!worse(i, p)) break;
        swap(i, p);
        i = p;
      }
    } else if (s > heapScores[0]! || (s === heapScores[0] && id < heapIds[0]!)) {
      heapIds[0] = id;
      heapScores[0] = s;
      siftDown(0);
    }
  }
  const hits: KeywordHit[] = [];
  for (let i = 0; i < size; i++) hits.push({ id: heapIds[i]!, rank: -1.0 * heapScores[i]! });
  return hits.sort((a, b) => a.rank - b.rank || a.id - b.id);
}

const blockIds = new Int32Array(MAX_BLOCK);
const blockTfs = new Uint16Array(MAX_BLOCK);

/** The score accumulator (zero between queries) and the touched ids, reused across queries. */
let sharedScore: { score: Float64Array; touched: Int32Array } | null = null;

function accumulator(size: number): { score: Float64Array; touched: Int32Array } {
  if (!sharedScore || sharedScore.score.length < size) {
    const n = Math.max(size, Math.ceil((sharedScore?.score.length ?? 0) * 1.5));
    sharedScore = { score: new Float64Array(n), touched: new Int32Array(n) };
  }
  return sharedScore;
}
