/**
 * Builds a "static" BERT GGUF whose forward pass in llama.cpp reduces to the mean of
 * layer-normed word vectors (see shared/notes/offline-embedding-model.md):
 * Wo = 0 and ffn_down = 0 make every block LayerNorm(x); zero position/type embeddings
 * leave only token_embd; mean pooling averages. LN epsilon 1e6 with γ = 1e3 makes each
 * LN ≈ x − mean(x) without rescaling, so caller-applied word weights survive pooling.
 */
import { writeGguf, kv, type GgufKV, type GgufTensor, type GgufWriteResult } from "./writer.js";

export interface StaticBertSpec {
  /** general.name */
  name: string;
  /** Vocabulary words WITHOUT the "▁" prefix, lowercase, unique. */
  words: string[];
  /** n_embd */
  dims: number;
  /** words.length * dims, row-major, already weighted by the caller. */
  vectors: Float32Array;
  /** Default 2048. */
  contextLength?: number;
  /** Type of token_embd.weight (and the zero position table); default "f16". */
  tensorType?: "f32" | "f16";
  /** Extra string KVs, e.g. {"general.license": "..."}. */
  metadata?: Record<string, string>;
}

/** Special tokens at ids 0..4; their embedding rows are zero. */
export const STATIC_BERT_SPECIAL_TOKENS: readonly string[] = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];
export const STATIC_BERT_PAD_ID = 0;
export const STATIC_BERT_UNK_ID = 1;
export const STATIC_BERT_CLS_ID = 2;
export const STATIC_BERT_SEP_ID = 3;
export const STATIC_BERT_MASK_ID = 4;
/** LayerNorm epsilon and weight (γ) used by every LN of the model. */
export const STATIC_BERT_LN_EPS = 1e6;
export const STATIC_BERT_LN_GAMMA = 1e3;
/** Blocks in the graph; the model applies 1 + 2·blocks LayerNorms to each token vector. */
export const STATIC_BERT_BLOCKS = 1;
export const STATIC_BERT_LAYER_NORMS = 1 + 2 * STATIC_BERT_BLOCKS;
/** WordPiece word-start marker llama.cpp prefixes to every word. */
export const WORD_PREFIX = "\u2581";
/** FFN width: the FFN output is zeroed by ffn_down anyway. */
const FFN_LENGTH = 1;
const HEAD_COUNT = 1;

/** Token id of `words[i]` in the written vocabulary. */
export function staticBertWordId(i: number): number {
  return STATIC_BERT_SPECIAL_TOKENS.length + i;
}

function validateSpec(spec: StaticBertSpec): void {
  if (!Number.isInteger(spec.dims) || spec.dims < 1) throw new Error(`static-bert: invalid dims ${spec.dims}`);
  if (spec.vectors.length !== spec.words.length * spec.dims)
    throw new Error(
      `static-bert: vectors has ${spec.vectors.length} values, expected ${spec.words.length} × ${spec.dims}`,
    );
  const seen = new Set<string>();
  for (const w of spec.words) {
    if (w.length === 0 || /\s/u.test(w)) throw new Error(`static-bert: invalid word ${JSON.stringify(w)}`);
    if (seen.has(w)) throw new Error(`static-bert: duplicate word ${JSON.stringify(w)}`); // llama.cpp asserts on duplicates
    seen.add(w);
  }
  for (const v of spec.vectors)
    if (!Number.isFinite(v)) throw new Error("static-bert: vectors contain a non-finite value");
}

function metadataKVs(spec: StaticBertSpec, ctx: number): GgufKV[] {
  const n = spec.dims;
  const tokens = [...STATIC_BERT_SPECIAL_TOKENS, ...spec.words.map((w) => WORD_PREFIX + w)];
  const types = tokens.map((_, i) => (i === STATIC_BERT_UNK_ID ? 2 : i < STATIC_BERT_SPECIAL_TOKENS.length ? 3 : 1));
  const base: GgufKV[] = [
    kv.string("general.architecture", "bert"),
    kv.string("general.name", spec.name),
    kv.u32("bert.context_length", ctx),
    kv.u32("bert.embedding_length", n),
    kv.u32("bert.block_count", STATIC_BERT_BLOCKS),
    kv.u32("bert.feed_forward_length", FFN_LENGTH),
    kv.u32("bert.attention.head_count", HEAD_COUNT),
    kv.f32("bert.attention.layer_norm_epsilon", STATIC_BERT_LN_EPS),
    kv.u32("bert.pooling_type", 1),
    kv.bool("bert.attention.causal", false),
    kv.string("tokenizer.ggml.model", "bert"),
    kv.strings("tokenizer.ggml.tokens", tokens),
    kv.i32s("tokenizer.ggml.token_type", types),
    kv.u32("tokenizer.ggml.token_type_count", 2),
    kv.u32("tokenizer.ggml.unknown_token_id", STATIC_BERT_UNK_ID),
    kv.u32("tokenizer.ggml.bos_token_id", STATIC_BERT_CLS_ID),
    kv.u32("tokenizer.ggml.seperator_token_id", STATIC_BERT_SEP_ID),
    kv.u32("tokenizer.ggml.padding_token_id", STATIC_BERT_PAD_ID),
    kv.u32("tokenizer.ggml.mask_token_id", STATIC_BERT_MASK_ID),
  ];
  const taken = new Set(base.map((e) => e.key));
  const extra = Object.entries(spec.metadata ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) // deterministic order
    .map(([k, v]) => {
      if (taken.has(k)) throw new Error(`static-bert: metadata key "${k}" is reserved`);
      return kv.string(k, v);
    });
  return [...base, ...extra];
}

function tensors(spec: StaticBertSpec, ctx: number): GgufTensor[] {
  const n = spec.dims;
  const big = spec.tensorType ?? "f16";
  const specials = STATIC_BERT_SPECIAL_TOKENS.length;
  const tokenEmbd = new Float32Array((specials + spec.words.length) * n);
  tokenEmbd.set(spec.vectors, specials * n);
  const zeros = (...dims: number[]): Float32Array => new Float32Array(dims.reduce((a, b) => a * b, 1));
  const filled = (len: number, v: number): Float32Array => new Float32Array(len).fill(v);
  const list: GgufTensor[] = [
    { name: "token_embd.weight", dims: [n, specials + spec.words.length], type: big, data: tokenEmbd },
    { name: "position_embd.weight", dims: [n, ctx], type: big, data: zeros(n, ctx) },
    { name: "token_types.weight", dims: [n, 2], type: "f32", data: zeros(n, 2) },
    { name: "token_embd_norm.weight", dims: [n], type: "f32", data: filled(n, STATIC_BERT_LN_GAMMA) },
    { name: "token_embd_norm.bias", dims: [n], type: "f32", data: zeros(n) },
  ];
  for (let b = 0; b < STATIC_BERT_BLOCKS; b++) {
    const p = `blk.${b}.`;
    list.push(
      { name: `${p}attn_qkv.weight`, dims: [n, 3 * n], type: "f32", data: zeros(n, 3 * n) },
      { name: `${p}attn_output.weight`, dims: [n, n], type: "f32", data: zeros(n, n) },
      { name: `${p}attn_output_norm.weight`, dims: [n], type: "f32", data: filled(n, STATIC_BERT_LN_GAMMA) },
      { name: `${p}attn_output_norm.bias`, dims: [n], type: "f32", data: zeros(n) },
      { name: `${p}ffn_up.weight`, dims: [n, FFN_LENGTH], type: "f32", data: zeros(n, FFN_LENGTH) },
      { name: `${p}ffn_down.weight`, dims: [FFN_LENGTH, n], type: "f32", data: zeros(FFN_LENGTH, n) },
      { name: `${p}layer_output_norm.weight`, dims: [n], type: "f32", data: filled(n, STATIC_BERT_LN_GAMMA) },
      { name: `${p}layer_output_norm.bias`, dims: [n], type: "f32", data: zeros(n) },
    );
  }
  return list;
}

/** Write a static-bert GGUF to `path` (atomically). Returns its size and sha256. */
export async function writeStaticBertGguf(path: string, spec: StaticBertSpec): Promise<GgufWriteResult> {
  validateSpec(spec);
  const ctx = spec.contextLength ?? 2048;
  if (!Number.isInteger(ctx) || ctx < 8) throw new Error(`static-bert: invalid contextLength ${ctx}`);
  return writeGguf(path, { kv: metadataKVs(spec, ctx), tensors: tensors(spec, ctx) });
}
