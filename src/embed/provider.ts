import type { RemoteHealth } from "./remote/resilience.js";

/**
 * An embedding provider turns texts into vectors. Implementations: `local`
 * (node-llama-cpp, any GGUF), `none` (keyword only); more come later.
 */
export interface EmbeddingProvider {
  /** Stable identity of the model that produced the vectors, e.g. "local:bert:<sha256-prefix>". Part of the cache key. */
  readonly identity: string;
  /** Human-readable model name (file name or URI). */
  readonly modelName: string;
  /** Vector length. */
  readonly dims: number;
  /**
   * Embed a batch of texts. Returns one entry per input, in order: a unit-length
   * (L2-normalised) vector, or null when the text has no embeddable content
   * (empty, only unknown words): such texts are keyword-only.
   */
  embedBatch(texts: readonly string[]): Promise<(Float32Array | null)[]>;
  /**
   * True for static word-vector models (the built-in one): a text embeds in microseconds, so the
   * searcher may embed the lines of its best candidates at query time (the "passage" stage).
   */
  readonly staticModel?: boolean;
  /**
   * Static models that expose their tokenizer (the built-in one): a text's token ids as embedding
   * it uses them (truncated alike), so its vector can be computed again from them (embedIds)
   * without the text: the passage stage stores them for each line at index time.
   */
  tokenIds?(text: string): number[];
  /** The vector of a text whose tokenIds are `ids`: what embedBatch gives that text, bit for bit (null: none). */
  embedIds?(ids: readonly number[]): Float32Array | null;
  /** Embeds search queries, for models that embed queries and documents differently (optional). */
  embedQueries?(texts: readonly string[]): Promise<(Float32Array | null)[]>;
  /** Counters since creation (for status). */
  stats(): EmbedStats;
  /** Live health of a remote endpoint (remote providers only; for status). */
  health?(): RemoteHealth;
  close(): Promise<void>;
}

export interface EmbedStats {
  embedded: number;
  /** Inputs that were longer than the model's context and got truncated. */
  truncated: number;
  /** Inputs that yielded no vector (empty / all unknown words). */
  empty: number;
}
