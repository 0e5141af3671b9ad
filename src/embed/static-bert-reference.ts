/**
 * Plain-TypeScript forward pass of a static-bert model (see gguf/static-bert.ts):
 * each token row goes through `layerNorms` LayerNorms (γ scalar, β = 0), rows are
 * mean-pooled, and the result is L2-normalised. Used to verify llama.cpp's output and
 * as a fast path that needs no native code.
 */
import { STATIC_BERT_LAYER_NORMS, STATIC_BERT_LN_EPS, STATIC_BERT_LN_GAMMA } from "./gguf/static-bert.js";

export interface StaticBertReferenceOptions {
  eps?: number;
  gamma?: number;
  /** LayerNorms applied per token; default 1 + 2·blocks of the written model. */
  layerNorms?: number;
}

/** LayerNorm of `x` into `out` with scalar weight `gamma`, zero bias. */
function layerNorm(x: Float64Array, out: Float64Array, eps: number, gamma: number): void {
  const n = x.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += x[i]!;
  mean /= n;
  let variance = 0;
  for (let i = 0; i < n; i++) variance += (x[i]! - mean) ** 2;
  variance /= n;
  const scale = gamma / Math.sqrt(variance + eps);
  for (let i = 0; i < n; i++) out[i] = (x[i]! - mean) * scale;
}

/**
 * Embedding of a token sequence (ids into `vectors`, which holds the full token_embd
 * table incl. special-token rows, row-major `dims` wide). Pass the ids exactly as the
 * model sees them, i.e. with [CLS] and [SEP]. Returns an L2-normalised vector, or a
 * zero vector when every row normalises to zero (empty / all unknown).
 */
export function embedStaticBertReference(
  tokenIds: readonly number[],
  vectors: Float32Array,
  dims: number,
  eps: number = STATIC_BERT_LN_EPS,
  gamma: number = STATIC_BERT_LN_GAMMA,
  options: Pick<StaticBertReferenceOptions, "layerNorms"> = {},
): Float32Array {
  const layerNorms = options.layerNorms ?? STATIC_BERT_LAYER_NORMS;
  const sum = new Float64Array(dims);
  const a = new Float64Array(dims);
  const b = new Float64Array(dims);
  for (const id of tokenIds) {
    if (!Number.isInteger(id) || id < 0 || (id + 1) * dims > vectors.length) throw new RangeError(`token id ${id} out of range`);
    for (let i = 0; i < dims; i++) a[i] = vectors[id * dims + i]!;
    let src = a;
    let dst = b;
    for (let l = 0; l < layerNorms; l++) {
      layerNorm(src, dst, eps, gamma);
      [src, dst] = [dst, src];
    }
    for (let i = 0; i < dims; i++) sum[i]! += src[i]!;
  }
  let norm = 0;
  for (let i = 0; i < dims; i++) norm += sum[i]! ** 2;
  norm = Math.sqrt(norm);
  const out = new Float32Array(dims);
  if (norm > 0) for (let i = 0; i < dims; i++) out[i] = sum[i]! / norm;
  return out;
}
