import type { KeywordHit } from "./bm25.js";

/**
 * The best k (id, score) pairs offered, higher score first, ties to the lower id (FTS5's
 * `ORDER BY bm25(), rowid`): a binary min-heap whose root is the worst kept.
 */
export class TopKHeap {
  private readonly ids: Int32Array;
  private readonly scores: Float64Array;
  private size = 0;

  constructor(k: number) {
    this.ids = new Int32Array(k);
    this.scores = new Float64Array(k);
  }

  get full(): boolean {
    return this.size === this.ids.length;
  }

  /** The worst kept score (the bar a new pair must reach once the heap is full). */
  get worstScore(): number {
    return this.scores[0]!;
  }

  /** Keeps (id, s) if it is among the best k so far; true when it was kept. */
  offer(id: number, s: number): boolean {
    const ids = this.ids;
    const scores = this.scores;
    if (this.size < ids.length) {
      let i = this.size++;
      ids[i] = id;
      scores[i] = s;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!this.worse(i, p)) break;
        this.swap(i, p);
        i = p;
      }
      return true;
    }
    if (!(s > scores[0]! || (s === scores[0] && id < ids[0]!))) return false;
    ids[0] = id;
    scores[0] = s;
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.size && this.worse(l, m)) m = l;
      if (r < this.size && this.worse(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
    return true;
  }

  /** The kept pairs as FTS5 hits (rank = −score), best first. */
  hits(): KeywordHit[] {
    const out: KeywordHit[] = [];
    for (let i = 0; i < this.size; i++) out.push({ id: this.ids[i]!, rank: -1.0 * this.scores[i]! });
    return out.sort((a, b) => a.rank - b.rank || a.id - b.id);
  }

  private worse(a: number, b: number): boolean {
    const s = this.scores;
    return s[a]! < s[b]! || (s[a] === s[b] && this.ids[a]! > this.ids[b]!);
  }

  private swap(a: number, b: number): void {
    const i = this.ids[a]!;
    this.ids[a] = this.ids[b]!;
    this.ids[b] = i;
    const s = this.scores[a]!;
    this.scores[a] = this.scores[b]!;
    this.scores[b] = s;
  }
}
