import { K1, type KeywordHit } from "./bm25.js";
import type { PostingsView } from "./keyword-postings.js";
import { blockOf, decodeBlock, MAX_BLOCK, type Postings } from "./postings-blocks.js";
import { exactScore, termsOf, type QueryTerm } from "./postings-terms.js";
import { TopKHeap } from "./topk-heap.js";
import { lengthNorm, shortLengths } from "./postings-lengths.js";

/**
 * The top k for a query whose words are all common (every list at least LONG_LIST postings: "the
 * and", "was in of", a frequent topic word with them), exactly, without reading the lists whole.
 *
 * Per long list, its TOP chunks by the token's part (tf · (k1 + 1)) / (tf + norm) are kept, with
 * what bounds every other chunk of the list: the "floor" no other chunk's part exceeds (ImpactSet).
 * The sets outlive writes (an agent appends to its log every turn; reading a list of most chunks
 * again after each would cost ~70 ms a word at 1M chunks): chunks inserted since a set was built
 * are scored besides it, deleted ones drop out, and the floor is taken at today's mean length. They
 * are built in the background after a load and again once they age (postings-impacts-warm); a
 * query that finds none builds it itself. A word in more than half the chunks (FTS5 floors its idf at
 * 1e-6) gets no top set: its part is bounded by k1 + 1, which at that weight moves the bound by
 * ~2e-6 — so a query of topic words with stop words among them is served too. A query of such
 * words only ("then so", "we they is": MaxScore steps through lists of nearly every chunk there,
 * since their block bounds barely prune) is served from their own top chunks, bounded likewise.
 * The candidates are the union of the other words' top chunks, each
 * scored exactly (its counts found by seeks, its parts added in query order as FTS5 adds them). A
 * chunk outside every top set gets at most Σ weight × floor; when the k-th candidate's score is
 * strictly above that (widened by a relative 1e-9, as postings-maxscore widens its bounds), no
 * other chunk can enter or tie the top k, so the result is FTS5's. Otherwise the answer is null
 * and MaxScore ranks (the cost is then a few thousand seeks more).
 *
 * Why it helps: with common words, MaxScore's block bounds barely prune (nearly every block of 128
 * holds a short chunk that uses the word), so it steps through most postings; the top parts of a
 * common word, though, sit far above its typical part, so the union of a few thousand usually holds
 * the top k with room to spare.
 */

/**
 * Lists shorter than this are left to MaxScore (its bounds prune them well), and chunks kept per
 * long list; `flooredTop` for a query of floored words only, whose parts are close together (a
 * stop word's part depends on little but the chunk's length): at 398,887 chunks (load ~0.5, k 40 /
 * 120) 2,048 proved the top k for 2 / 1 of 16 such queries (the union scored for nothing, then
 * MaxScore: p50 29 ms, p95 45 ms, MaxScore alone p50 22 ms), 16,384 for all 16 (p50 10.6 / 13.4 ms,
 * p95 16.7 / 19.1 ms). Other queries of common words go to MaxScore (`flooredOnly`): there, for the
 * 70 others whose lists all hold ≥ 16,384 postings, MaxScore alone took p50 0.96 ms, p95 5.8 ms
 * (k 40) against 1.79 / 11.1 ms for their 2,048 top chunks with MaxScore after a failed bound.
 */
export const IMPACT_PLAN: ImpactPlan = { longList: 16_384, top: 2048, flooredTop: 16_384, flooredOnly: true };

export interface ImpactPlan {
  longList: number;
  top: number;
  /** Chunks kept per list for a query of floored words only (default `top`). */
  flooredTop?: number;
  /** Only for a query of floored words only (others go to MaxScore). */
  flooredOnly?: boolean;
}
const MARGIN = 1 + 1e-9;

/**
 * A long list's TOP chunks by part, kept across writes. Built at `version` of the postings, it stays
 * a valid source of candidates later, exactly:
 * - a chunk inserted since (postings-inserts: even at a reused id) is scored too;
 * - a chunk deleted since drops out by itself (the seeks of its words find no posting);
 * - no chunk outside `ids` that was in the list then gets more than the floor at the mean length of
 *   now: per count of the token (tf), the shortest chunk among those left out is kept (`minLength`),
 *   and since the part grows with tf and falls with length, the largest part over that frontier
 *   bounds each of them at any mean length (counts of TF_CAP or more share one slot, bounded by the
 *   largest such count).
 */
export interface ImpactSet {
  top: number;
  /** The postings' version when the build began (inserts after it are not in `ids` nor the frontier). */
  version: number;
  /** Mean length of the chunks then (a set far from today's is built again in the background). */
  avgdl: number;
  /** The chosen chunks, ids ascending. */
  ids: Int32Array;
  /** Per tf (1 … TF_CAP − 1, TF_CAP for more): the shortest chunk left out (NONE: no such chunk). */
  minLength: Int32Array;
  /** The largest tf ≥ TF_CAP left out. */
  maxTf: number;
}

export const TF_CAP = 16;
const NONE = 0x7fffffff;

/** No chunk outside the set (that was in the list when it was built) gets a larger part from the token now. */
export function floorOf(set: ImpactSet, avgdl: number): number {
  let floor = 0;
  for (let tf = 1; tf <= TF_CAP; tf++) {
    const len = set.minLength[tf]!;
    if (len === NONE) continue;
    const t = tf === TF_CAP ? set.maxTf : tf;
    const part = (t * (K1 + 1.0)) / (t + lengthNorm(len, avgdl));
    if (part > floor) floor = part;
  }
  return floor;
}

/**
 * Builds one list's set in steps (the background warm-up: postings-impacts-warm) or at once: its
 * postings read in id order from where the last step stopped, so writes between steps neither skip
 * nor repeat a posting that was there when it began (one inserted since is in the insert log); the
 * best TOP by part in a min-heap, every posting pushed out of it (or never let in) into the frontier.
 */
export class ImpactBuild {
  readonly version: number;
  private readonly avgdl: number;
  private nextId = 0;
  private size = 0;
  private readonly ids: Int32Array;
  private readonly parts: Float64Array;
  private readonly tfs: Uint16Array;
  private readonly lens: Int32Array;
  private readonly minLength = new Int32Array(TF_CAP + 1).fill(NONE);
  private maxTf = 0;
  done = false;

  constructor(
    view: PostingsView,
    readonly list: Postings,
    readonly top: number,
  ) {
    this.version = view.version;
    this.avgdl = view.tokens / view.rows;
    this.ids = new Int32Array(top);
    this.parts = new Float64Array(top);
    this.tfs = new Uint16Array(top);
    this.lens = new Int32Array(top);
  }

  /** Reads blocks until `deadline` (performance.now()); the set once the list is read whole, else null. */
  step(view: PostingsView, deadline = Infinity): ImpactSet | null {
    const list = this.list;
    const norm0 = this.avgdl;
    let b = blockOf(list, this.nextId);
    for (let steps = 0; b < list.blocks; b++, steps++) {
      if ((steps & 15) === 15 && performance.now() > deadline) break;
      const c = decodeBlock(list, b, blockIds, blockTfs);
      for (let j = 0; j < c; j++) {
        const id = blockIds[j]!;
        if (id < this.nextId) continue;
        const tf = blockTfs[j]!;
        const len = view.lengths[id]!;
        this.offer(id, tf, len, (tf * (K1 + 1.0)) / (tf + lengthNorm(len, norm0)));
      }
      this.nextId = list.lasts[b]! + 1;
    }
    if (b < list.blocks) return null;
    this.done = true;
    const ids = this.ids.slice(0, this.size).sort();
    return {
      top: this.top,
      version: this.version,
      avgdl: this.avgdl,
      ids,
      minLength: this.minLength,
      maxTf: this.maxTf,
    };
  }

  private leaveOut(tf: number, len: number): void {
    const slot = tf < TF_CAP ? tf : TF_CAP;
    if (len < this.minLength[slot]!) this.minLength[slot] = len;
    if (tf >= TF_CAP && tf > this.maxTf) this.maxTf = tf;
  }

  /** Keeps (id, part) among the best TOP, the lowest part at the root; what is not kept is left out. */
  private offer(id: number, tf: number, len: number, part: number): void {
    const { ids, parts, tfs, lens } = this;
    if (this.size < this.top) {
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (parts[p]! <= part) break;
        [ids[i], parts[i], tfs[i], lens[i]] = [ids[p]!, parts[p]!, tfs[p]!, lens[p]!];
        i = p;
      }
      [ids[i], parts[i], tfs[i], lens[i]] = [id, part, tf, len];
      return;
    }
    if (!(part > parts[0]!)) {
      this.leaveOut(tf, len);
      return;
    }
    this.leaveOut(tfs[0]!, lens[0]!);
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = -1;
      let mp = part;
      if (l < this.size && parts[l]! < mp) [m, mp] = [l, parts[l]!];
      if (r < this.size && parts[r]! < mp) m = r;
      if (m < 0) break;
      [ids[i], parts[i], tfs[i], lens[i]] = [ids[m]!, parts[m]!, tfs[m]!, lens[m]!];
      i = m;
    }
    [ids[i], parts[i], tfs[i], lens[i]] = [id, part, tf, len];
  }
}

/** Reused for one block. */
const blockIds = new Int32Array(MAX_BLOCK);
const blockTfs = new Uint16Array(MAX_BLOCK);

/** Each list's sets by TOP (a WeakMap: a reload's new lists start afresh). */
const cache = new WeakMap<Postings, Map<number, ImpactSet>>();

/** Inserts since a set was built above which it is built again (each costs a seek per word per query). */
export const STALE_INSERTS = 1024;
/** Drift of the mean length since a set was built above which it is built again (its choice ages). */
export const STALE_DRIFT = 0.05;

/** The set kept for (list, top) if it can still serve (null: none, or the insert log no longer reaches it). */
export function keptSet(view: PostingsView, list: Postings, top: number): ImpactSet | null {
  const set = cache.get(list)?.get(top);
  if (!set || view.inserts.countSince(set.version) === null) return null;
  return set;
}

/** The set of (list, top) needs building (none kept, or it has aged: many inserts since, or the mean length drifted). */
export function needsBuild(view: PostingsView, list: Postings, top: number): boolean {
  const set = keptSet(view, list, top);
  if (!set) return true;
  const since = view.inserts.countSince(set.version)!;
  return since > STALE_INSERTS || Math.abs(view.tokens / view.rows / set.avgdl - 1) > STALE_DRIFT;
}

export function keepSet(list: Postings, set: ImpactSet): void {
  let byTop = cache.get(list);
  if (!byTop) cache.set(list, (byTop = new Map()));
  byTop.set(set.top, set);
}

/** The set of (list, top) built now, at once (a full read of the list), and kept. */
export function buildSet(view: PostingsView, list: Postings, top: number): ImpactSet {
  const set = new ImpactBuild(view, list, top).step(view)!;
  keepSet(list, set);
  return set;
}

/** Bytes the kept sets of these lists hold. */
export function impactBytes(lists: Iterable<Postings>): number {
  let bytes = 0;
  for (const list of lists)
    for (const set of cache.get(list)?.values() ?? []) bytes += set.ids.byteLength + set.minLength.byteLength;
  return bytes;
}

/** Whether a query of these words would be served from their sets, and with which TOP (null: not). */
export function planTop(terms: readonly QueryTerm[], plan: ImpactPlan): number | null {
  if (terms.length === 0 || terms.some((t) => t.list.n < plan.longList)) return null;
  const allFloored = terms.every((t) => t.floored);
  if (plan.flooredOnly && !allFloored) return null;
  return allFloored ? (plan.flooredTop ?? plan.top) : plan.top;
}

/** The exact top k when every word of the query is common and the bound proves it; else null. */
export function impactTopK(
  view: PostingsView,
  tokens: readonly string[],
  k: number,
  norm: Float64Array,
  plan: ImpactPlan = IMPACT_PLAN,
  trace?: { setsBuilt?: number },
): KeywordHit[] | null {
  const { terms, order } = termsOf(view, tokens);
  const top = planTop(terms, plan);
  if (top === null) return null;
  // Stop words only (every idf floored): their own top chunks bound them (else k1 + 1 does).
  const allFloored = terms.every((t) => t.floored);
  const avgdl = view.tokens / view.rows;
  let bound = 0;
  let oldest = view.version;
  const sets: Int32Array[] = [];
  for (const t of terms) {
    if (t.floored && !allFloored) {
      bound += t.weight * (K1 + 1.0); // tf / (tf + norm) < 1
      continue;
    }
    let set = keptSet(view, t.list, top);
    if (!set) {
      set = buildSet(view, t.list, top);
      if (trace) trace.setsBuilt = (trace.setsBuilt ?? 0) + 1;
    }
    bound += t.weight * floorOf(set, avgdl);
    sets.push(set.ids);
    if (set.version < oldest) oldest = set.version;
  }
  // Chunks inserted since the oldest set was built are candidates too (a set knows nothing of them).
  const inserted = view.inserts.since(oldest)!;
  if (inserted.length > 0) sets.push(inserted);
  const candidates = unionSorted(sets);
  const heap = new TopKHeap(k);
  const short = shortLengths(view);
  for (let c = 0; c < candidates.length; c++) {
    const d = candidates[c]!;
    let held = false;
    for (const t of terms) {
      t.cur.seek(d);
      t.tf = t.cur.id === d ? t.cur.tf : 0;
      if (t.tf > 0) held = true;
    }
    // A chunk deleted since (or inserted without these words) is no match.
    if (held) heap.offer(d, exactScore(order, short ? lengthNorm(short[d]!, avgdl) : norm[d]!));
  }
  if (!heap.full || !(heap.worstScore > bound * MARGIN)) return null;
  return heap.hits();
}

/** The distinct ids of ascending arrays, ascending. */
function unionSorted(sets: readonly Int32Array[]): Int32Array {
  if (sets.length === 1) return sets[0]!;
  let n = 0;
  for (const s of sets) n += s.length;
  const all = new Int32Array(n);
  let o = 0;
  for (const s of sets) {
    all.set(s, o);
    o += s.length;
  }
  all.sort();
  let w = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[w - 1]) all[w++] = all[i]!;
  return all.subarray(0, w);
}
