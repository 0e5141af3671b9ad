import { B, K1, type KeywordHit } from "../../index/bm25.js";
import type { PostingsView } from "../../index/keyword-postings.js";

/**
 * The best `k` chunks for an OR query of single-token phrases by BM25, from the postings in memory
 * (index/keyword-postings), equal to FTS5's `MATCH … ORDER BY bm25(chunks_fts), rowid`: the same
 * idf per phrase (floored at 1e-6), k1, b, mean length (total tokens / rows, column weight 1), and
 * the same arithmetic in the same order — each chunk's score is the sum of its phrases' parts taken
 * in query order (a phrase a chunk lacks adds exactly 0 in FTS5) — so the scores are bit-identical
 * and ties fall to the lower id as there.
 *
 * `tokens`: each phrase's one FTS5 token, in query order (a phrase may repeat a token: it counts
 * again, as in FTS5). The scores accumulate in a typed array by chunk id; the top k is kept in a
 * binary heap.
 */
export function postingsTopK(view: PostingsView, tokens: readonly string[], k: number): KeywordHit[] {
  if (k <= 0 || view.rows === 0) return [];
  const acc = scratch(view.lengths.length);
  const touched = acc.touched;
  const score = acc.score;
  let nTouched = 0;
  const norm = lengthNorms(view);
  for (const token of tokens) {
    const list = view.lists.get(token);
    if (!list) continue;
    let idf = view.ln((view.rows - list.n + 0.5) / (list.n + 0.5));
    if (idf <= 0) idf = 1e-6;
    const ids = list.ids;
    const tfs = list.tfs;
    for (let j = 0; j < list.n; j++) {
      const id = ids[j]!;
      const tf = tfs[j]!;
      const part = idf * ((tf * (K1 + 1.0)) / (tf + norm[id]!));
      if (score[id] === 0) touched[nTouched++] = id;
      score[id]! += part;
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

/**
 * Each chunk's k1 · (1 − b + b · length / mean length), as FTS5 computes it per row: kept per
 * postings until they change (a write moves the mean and the lengths).
 */
const norms = new WeakMap<PostingsView, { version: number; norm: Float64Array }>();

function lengthNorms(view: PostingsView): Float64Array {
  const known = norms.get(view);
  if (known && known.version === view.version) return known.norm;
  const avgdl = view.tokens / view.rows;
  const lengths = view.lengths;
  const norm = known && known.norm.length === lengths.length ? known.norm : new Float64Array(lengths.length);
  for (let id = 0; id < lengths.length; id++) norm[id] = K1 * (1 - B + (B * lengths[id]!) / avgdl);
  norms.set(view, { version: view.version, norm });
  return norm;
}

/** The score accumulator (zero between queries) and the touched ids, reused across queries. */
let shared: { score: Float64Array; touched: Int32Array } | null = null;

function scratch(size: number): { score: Float64Array; touched: Int32Array } {
  if (!shared || shared.score.length < size) {
    const n = Math.max(size, Math.ceil((shared?.score.length ?? 0) * 1.5));
    shared = { score: new Float64Array(n), touched: new Int32Array(n) };
  }
  return shared;
}
