import type { EmbeddingProvider } from "../embed/provider.js";
import { units } from "../ingest/units.js";
import {
  estimateRecords,
  passageRecords,
  type PassageEstimate,
  type PassageRecords,
} from "../index/vectors/passage-codes.js";

/** Unit vectors kept per chunk content hash, bounded by bytes (least recently used dropped first). */
export const PASSAGE_CACHE_BYTES = 8 * 1024 * 1024;

/**
 * Stage "passage": a chunk is ~400 tokens and often mixes topics (a day's log, a long conversation),
 * and its one vector averages them. This scorer embeds each unit of a chunk (a line, or a whole
 * transcript message) and gives the best unit's cosine similarity to the query, so a chunk holding
 * one line that answers the question can rise above chunks that are only broadly on topic.
 *
 * For static word-vector models (the built-in one) the unit vectors are computed at index time and
 * stored with the chunk (index/vectors/passage-vectors.ts): the scorer reads them. A chunk without them (an
 * index being upgraded, a model that is not static) has its units embedded here, which is only
 * affordable when a text costs microseconds to embed; the searcher decides when to. Those vectors
 * are cached per chunk content hash, so such a chunk is embedded once.
 */
export class PassageScorer {
  private readonly cache = new Map<string, Float32Array>();
  private bytes = 0;

  constructor(
    private readonly provider: EmbeddingProvider,
    private readonly maxBytes = PASSAGE_CACHE_BYTES,
  ) {}

  /**
   * For each chunk, the highest cosine similarity between `query` (unit length) and any of its units
   * (0 when none embeds): scores() of chunks whose texts are all at hand.
   */
  async best(
    query: Float32Array,
    chunks: readonly { id: number; hash: string; text: string }[],
    stored: ReadonlyMap<number, Buffer> = new Map(),
  ): Promise<number[]> {
    const byId = new Map(chunks.map((c) => [c.id, c]));
    const got = await this.scores(
      query,
      chunks.map((c) => c.id),
      stored,
      () => byId,
    );
    return got.map((s) => s ?? 0);
  }

  /**
   * For each chunk id, the highest cosine similarity between `query` (unit length) and any of its
   * units (0 when none embeds; undefined when the chunk needed its text and `readTexts` has none).
   * A chunk with `stored` passage vectors (index/vectors/passage-codes.ts) has every unit estimated from
   * them; only the units whose estimate, give or take its error bound, can be the best are scored
   * exactly (usually one or two a chunk): from their stored token ids when the blob has them
   * (nothing is tokenized, and the chunk's text is not read), else embedded from their text; so
   * the result is what embedding every unit gives. A chunk without them has all its units embedded
   * (and cached). `readTexts` is called once, with the ids whose text is needed (if any).
   */
  async scores(
    query: Float32Array,
    ids: readonly number[],
    stored: ReadonlyMap<number, Buffer>,
    readTexts: (ids: number[]) => ReadonlyMap<number, { hash: string; text: string }>,
  ): Promise<(number | undefined)[]> {
    let l1 = 0;
    for (let i = 0; i < query.length; i++) l1 += Math.abs(query[i]!);
    const scores = new Array<number | undefined>(ids.length).fill(undefined);
    const reads: (PassageRecords | null)[] = new Array(ids.length);
    const needText: number[] = [];
    const { embedIds } = this.provider;
    ids.forEach((id, i) => {
      const blob = stored.get(id);
      const read = (reads[i] = blob ? passageRecords(blob, query.length) : null);
      if (embedIds && read?.hasIds) scores[i] = this.fromIds(read, query, l1, embedIds);
      else needText.push(i);
    });
    if (needText.length === 0) return scores;
    const texts = readTexts(needText.map((i) => ids[i]!));
    /** Units to score exactly from their text: the chunk's index in `ids` and the unit's text. */
    const exact: { chunk: number; text: string }[] = [];
    const rest: { i: number; hash: string; text: string }[] = [];
    for (const i of needText) {
      const row = texts.get(ids[i]!);
      if (!row) continue; // undefined: not a chunk (any more)
      const read = reads[i];
      if (!read) {
        rest.push({ i, hash: row.hash, text: row.text }); // not stored
        continue;
      }
      const est = estimateRecords(read, query, l1);
      const us = units(row.text);
      if (est.length !== us.length) {
        rest.push({ i, hash: row.hash, text: row.text }); // not this text's
        continue;
      }
      const floor = floorOf(est);
      est.forEach((e, u) => {
        if (e.error > 0 && e.score + e.error >= floor) exact.push({ chunk: i, text: us[u]!.text });
      });
      scores[i] = 0;
    }
    if (exact.length > 0) {
      const vecs = await this.provider.embedBatch(exact.map((x) => x.text));
      exact.forEach((x, j) => {
        const v = vecs[j];
        if (!v || v.length !== query.length) return;
        const dot = dotOf(v, 0, query);
        if (dot > scores[x.chunk]!) scores[x.chunk] = dot;
      });
    }
    if (rest.length > 0) {
      const embedded = await this.embedded(query, rest);
      rest.forEach((r, j) => (scores[r.i] = embedded[j]!));
    }
    return scores;
  }

  /**
   * A chunk's best unit from its stored token ids: the units that can be the best (their estimate's
   * upper bound reaches every unit's lower bound) in order of that upper bound, until the next one's
   * cannot beat the best exact score found (its exact score is at most its upper bound).
   */
  private fromIds(
    read: PassageRecords,
    query: Float32Array,
    l1: number,
    embedIds: NonNullable<EmbeddingProvider["embedIds"]>,
  ): number {
    const est = estimateRecords(read, query, l1);
    const floor = floorOf(est);
    const open: number[] = [];
    for (let u = 0; u < est.length; u++) {
      const e = est[u]!;
      if (e.error > 0 && e.score + e.error >= floor) open.push(u);
    }
    const upper = (u: number) => est[u]!.score + est[u]!.error;
    if (open.length > 1) open.sort((a, b) => upper(b) - upper(a) || a - b);
    let best = 0;
    for (const u of open) {
      if (upper(u) <= best) break;
      const v = embedIds.call(this.provider, read.ids(u)!);
      if (v && v.length === query.length) best = Math.max(best, dotOf(v, 0, query));
    }
    return best;
  }

  /** best() for chunks without stored passage vectors: their units embedded now (and cached). */
  private async embedded(query: Float32Array, chunks: readonly { hash: string; text: string }[]): Promise<number[]> {
    const dims = query.length;
    const missing = new Map<string, string>();
    for (const c of chunks) if (!this.cache.has(c.hash)) missing.set(c.hash, c.text);
    if (missing.size > 0) {
      const entries = [...missing];
      const texts = entries.map(([, text]) => units(text).map((u) => u.text));
      const vecs = await this.provider.embedBatch(texts.flat());
      let at = 0;
      entries.forEach(([hash], i) => {
        const n = texts[i]!.length;
        const rows: Float32Array[] = [];
        for (const v of vecs.slice(at, at + n)) if (v && v.length === dims) rows.push(v);
        at += n;
        const packed = new Float32Array(rows.length * dims);
        rows.forEach((v, r) => packed.set(v, r * dims));
        this.remember(hash, packed);
      });
    }
    return chunks.map((c) => {
      const packed = this.cache.get(c.hash);
      if (!packed) return 0;
      // Touch: most recently used last.
      this.cache.delete(c.hash);
      this.cache.set(c.hash, packed);
      let best = 0;
      for (let off = 0; off + dims <= packed.length; off += dims) best = Math.max(best, dotOf(packed, off, query));
      return best;
    });
  }

  /** Cached chunks and their bytes (for tests and status). */
  get size(): { chunks: number; bytes: number } {
    return { chunks: this.cache.size, bytes: this.bytes };
  }

  private remember(hash: string, packed: Float32Array): void {
    if (packed.byteLength > this.maxBytes) return;
    this.cache.set(hash, packed);
    this.bytes += packed.byteLength;
    for (const [key, old] of this.cache) {
      if (this.bytes <= this.maxBytes) break;
      this.cache.delete(key);
      this.bytes -= old.byteLength;
    }
  }
}

/** The highest lower bound of the estimates (0 at least). */
function floorOf(est: readonly PassageEstimate[]): number {
  let floor = 0;
  for (const e of est) floor = Math.max(floor, e.score - e.error);
  return floor;
}

/** The dot product of `query` with the vector at `off` in `rows`. */
function dotOf(rows: Float32Array, off: number, query: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < query.length; i++) dot += rows[off + i]! * query[i]!;
  return dot;
}
