import type { EmbeddingProvider } from "../embed/provider.js";
import { units } from "./excerpt.js";

/** Unit vectors kept per chunk content hash, bounded by bytes (least recently used dropped first). */
export const PASSAGE_CACHE_BYTES = 8 * 1024 * 1024;

/**
 * Stage "passage": a chunk is ~400 tokens and often mixes topics (a day's log, a long conversation),
 * and its one vector averages them. This scorer embeds each unit of a chunk (a line, or a whole
 * transcript message) and gives the best unit's cosine similarity to the query, so a chunk holding
 * one line that answers the question can rise above chunks that are only broadly on topic.
 *
 * Embedding every unit of the best candidates at query time is only affordable when a text costs
 * microseconds to embed (static word-vector models, like the built-in one); the searcher decides
 * when to use it. Unit vectors are cached per chunk content hash, so a chunk is embedded once.
 */
export class PassageScorer {
  private readonly cache = new Map<string, Float32Array>();
  private bytes = 0;

  constructor(
    private readonly provider: EmbeddingProvider,
    private readonly maxBytes = PASSAGE_CACHE_BYTES,
  ) {}

  /** For each chunk, the highest cosine similarity between `query` (unit length) and any of its units (0 when none embeds). */
  async best(query: Float32Array, chunks: readonly { hash: string; text: string }[]): Promise<number[]> {
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
      for (let off = 0; off + dims <= packed.length; off += dims) {
        let dot = 0;
        for (let i = 0; i < dims; i++) dot += packed[off + i]! * query[i]!;
        if (dot > best) best = dot;
      }
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
