/**
 * A pure-TypeScript EmbeddingProvider for static-bert GGUF models (the built-in
 * cortexd-glove-100d-sif model and anything else gguf/static-bert.ts writes), with no
 * native code.
 *
 * It reproduces what node-llama-cpp + llama.cpp compute for such a file, so both paths
 * share one identity (and one vector cache):
 *  - tokenisation: llama.cpp's WordPiece (llm_tokenizer_wpm_session): map each code point to
 *    the first code point of its NFD form, drop control chars / U+FFFD / accent marks,
 *    lowercase, split on whitespace, make every punctuation mark, ASCII symbol and CJK
 *    ideograph its own word, then match "▁"+word greedily (longest first) against the
 *    vocabulary; a word with any unmatched part becomes one [UNK];
 *  - truncation: like local-provider.ts, at contextSize − 3 text tokens (default context
 *    min(2048, model's context_length));
 *  - node-llama-cpp adds [CLS] … [SEP];
 *  - forward pass: for this family every block is the identity followed by two LayerNorms
 *    (Wo = 0, ffn_down = 0, zero positions and token types — verified at load, the file
 *    is refused otherwise), so each token's output is LN^(1+2·blocks)(token_embd[id]) with
 *    the file's own ε, γ and β; mean pooling over all tokens incl. [CLS]/[SEP];
 *  - L2-normalised; empty input or only unknown words → null.
 */
import path from "node:path";
import type { EmbeddingProvider, EmbedStats } from "../provider.js";
import { DEFAULT_CONTEXT } from "../defaults.js";
import { localModelIdentity } from "../model-identity.js";
import { loadStaticBertModel, type StaticBertModel } from "./static-bert-load.js";

/** The same default as local-provider.ts: the two paths must truncate identically. */
const LOCAL_PROVIDER_DEFAULT_CONTEXT = DEFAULT_CONTEXT;

/**
 * Pooled, L2-normalised embedding of text token ids (without [CLS]/[SEP]; they are added here),
 * or null when it is zero (only unknown words). `ids` must already be truncated.
 */
export function embedTokenIds(
  model: StaticBertModel,
  ids: readonly number[],
  sum: Float64Array = new Float64Array(model.dims),
): Float32Array | null {
  const { dims, rows } = model;
  // Row offsets first (computing a row may replace rows.table), then one tight loop per row.
  const count = ids.length + 2;
  const offs = new Int32Array(count);
  offs[0] = rows.offset(model.clsId);
  for (let k = 0; k < ids.length; k++) offs[k + 1] = rows.offset(ids[k]!);
  offs[count - 1] = rows.offset(model.sepId);
  const table = rows.table;
  sum.fill(0);
  // Four rows per pass over the dimensions: each dimension's sum still adds the rows one by one,
  // in order (the same doubles), with a quarter of the loads and stores of `sum`.
  let k = 0;
  for (; k + 4 <= count; k += 4) {
    const o0 = offs[k]!;
    const o1 = offs[k + 1]!;
    const o2 = offs[k + 2]!;
    const o3 = offs[k + 3]!;
    for (let i = 0; i < dims; i++) {
      let s = sum[i]!;
      s += table[o0 + i]!;
      s += table[o1 + i]!;
      s += table[o2 + i]!;
      s += table[o3 + i]!;
      sum[i] = s;
    }
  }
  for (; k < count; k++) {
    const off = offs[k]!;
    for (let i = 0; i < dims; i++) sum[i]! += table[off + i]!;
  }
  let sq = 0;
  for (let i = 0; i < dims; i++) {
    sum[i] = sum[i]! / count;
    sq += sum[i]! * sum[i]!;
  }
  const norm = Math.sqrt(sq);
  if (!(norm > 1e-12) || !Number.isFinite(norm)) return null;
  const out = new Float32Array(dims);
  for (let i = 0; i < dims; i++) out[i] = sum[i]! / norm;
  return out;
}

export interface StaticBertProviderOptions {
  /** As local-provider's contextSize: default min(2048, model context); inputs are cut at contextSize − 3 tokens. */
  contextSize?: number;
}

export class StaticBertProvider implements EmbeddingProvider {
  readonly identity: string;
  readonly modelName: string;
  readonly dims: number;
  readonly staticModel = true;
  private readonly counters: EmbedStats = { embedded: 0, truncated: 0, empty: 0 };
  private readonly sum: Float64Array;
  private closed = false;

  constructor(
    private model: StaticBertModel | null,
    private readonly maxTokens: number,
  ) {
    const m = model!;
    // Exactly local-provider.ts's identity, so either path fills and reads the same cache.
    this.identity = localModelIdentity(m.file, m.sha256);
    this.modelName = path.basename(m.file);
    this.dims = m.dims;
    this.sum = new Float64Array(m.dims);
  }

  /** Text → token ids (truncated like the local provider), without [CLS]/[SEP]. */
  tokenize(text: string): { ids: number[]; truncated: boolean } {
    let ids = this.live().tokenizer.tokenize(text);
    const truncated = ids.length > this.maxTokens;
    if (truncated) ids = ids.slice(0, this.maxTokens);
    return { ids, truncated };
  }

  embedOne(text: string): Float32Array | null {
    return this.embedIds(this.tokenIds(text));
  }

  /** Token ids of a text as embedOne uses them (truncated, counted as such). */
  tokenIds(text: string): number[] {
    const { ids, truncated } = this.tokenize(text);
    if (truncated) this.counters.truncated++;
    return ids;
  }

  /** embedOne() of a text whose tokenIds() are `ids`. */
  embedIds(ids: readonly number[]): Float32Array | null {
    const model = this.live();
    const vec = ids.length === 0 ? null : embedTokenIds(model, ids, this.sum);
    if (vec) this.counters.embedded++;
    else this.counters.empty++;
    return vec;
  }

  async embedBatch(texts: readonly string[]): Promise<(Float32Array | null)[]> {
    const out: (Float32Array | null)[] = [];
    let slice = performance.now();
    for (const text of texts) {
      out.push(this.embedOne(text));
      if (performance.now() - slice > 20) {
        // Long batches: let the event loop breathe (socket requests, timers).
        await new Promise<void>((resolve) => setImmediate(resolve));
        slice = performance.now();
      }
    }
    return out;
  }

  stats(): EmbedStats {
    return { ...this.counters };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.model = null;
  }

  private live(): StaticBertModel {
    if (this.closed || !this.model) throw new Error("static-bert embedding provider is closed");
    return this.model;
  }
}

/**
 * EmbeddingProvider for a static-bert GGUF, computed in TypeScript; same identity, vectors
 * (within ~1e-6) and truncation as createLocalProvider({ model: file }) on the same file.
 */
export async function createStaticBertProvider(
  file: string,
  opts: StaticBertProviderOptions = {},
): Promise<StaticBertProvider> {
  const model = await loadStaticBertModel(file);
  const requested = opts.contextSize ?? LOCAL_PROVIDER_DEFAULT_CONTEXT;
  if (!Number.isInteger(requested) || requested < 8)
    throw new RangeError(`contextSize must be an integer ≥ 8 (got ${requested})`);
  const contextSize = Math.min(requested, model.contextLength);
  return new StaticBertProvider(model, Math.max(1, contextSize - 3));
}
