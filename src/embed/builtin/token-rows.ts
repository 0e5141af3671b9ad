/**
 * A static-bert model's per-token output rows (its LayerNorm chain over token_embd), computed on
 * first use, and the F16 decoding table they share with the tensor reader.
 */
import { f16BitsToF32 } from "../gguf/f16.js";

export interface LayerNormParams {
  weight: Float32Array;
  bias: Float32Array;
}

/** LayerNorm as ggml_norm + mul + add: (x − mean)/sqrt(var + ε)·γ + β, in doubles. */
function layerNorm(x: Float64Array, eps: number, p: LayerNormParams): void {
  const n = x.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += x[i]!;
  mean /= n;
  let variance = 0;
  for (let i = 0; i < n; i++) {
    const d = x[i]! - mean;
    variance += d * d;
  }
  variance /= n;
  const inv = 1 / Math.sqrt(variance + eps);
  for (let i = 0; i < n; i++) x[i] = (x[i]! - mean) * inv * p.weight[i]! + p.bias[i]!;
}

/**
 * Token output rows, computed lazily: the file's token_embd stays as stored (F16 bits or F32), and
 * the first time a token is used its LayerNorm chain is computed into a growing pool of F32 rows
 * (positions and token types are zero, so the output does not depend on where the token stands).
 * Doing all rows up front would cost startup time and memory that mostly go unused: a
 * workspace touches a fraction of the vocabulary.
 */
export class TokenRows {
  /** Per token id: its row in `table` + 1, or 0 while not computed. */
  private readonly slots: Int32Array;
  private pool: Float32Array;
  private used = 0;
  private readonly x: Float64Array;
  constructor(
    /** token_embd: F32 values, or F16 bit patterns (decoded per row). */
    private readonly source: Float32Array | Uint16Array,
    readonly dims: number,
    private readonly eps: number,
    private readonly norms: readonly LayerNormParams[],
  ) {
    this.slots = new Int32Array(source.length / dims);
    this.pool = new Float32Array(dims * 1024);
    this.x = new Float64Array(dims);
  }
  /** The computed rows; read it after offset() (computing a row may replace it with a larger one). */
  get table(): Float32Array {
    return this.pool;
  }
  /** Tokens whose row has been computed. */
  get computed(): number {
    return this.used;
  }
  /** Offset of token `id`'s output row in `table`, computing the row on first use. */
  offset(id: number): number {
    const slot = this.slots[id]!;
    if (slot > 0) return (slot - 1) * this.dims;
    const { dims, source, x } = this;
    const from = id * dims;
    if (source instanceof Uint16Array) {
      const f16 = f16Decoder();
      for (let i = 0; i < dims; i++) x[i] = f16[source[from + i]!]!;
    } else {
      for (let i = 0; i < dims; i++) x[i] = source[from + i]!;
    }
    for (let l = 0; l < this.norms.length; l++) layerNorm(x, this.eps, this.norms[l]!);
    if ((this.used + 1) * dims > this.pool.length) {
      const bigger = new Float32Array(Math.min(this.slots.length * dims, this.pool.length * 2));
      bigger.set(this.pool);
      this.pool = bigger;
    }
    const off = this.used * dims;
    for (let i = 0; i < dims; i++) this.pool[off + i] = x[i]!;
    this.slots[id] = ++this.used;
    return off;
  }
}

let f16Table: Float32Array | undefined;

/** F16 bit pattern → F32 value, as a 64K-entry table. */
export function f16Decoder(): Float32Array {
  if (!f16Table) {
    f16Table = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) f16Table[h] = f16BitsToF32(h);
  }
  return f16Table;
}
