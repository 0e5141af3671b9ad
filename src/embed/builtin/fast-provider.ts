/**
 * A pure-TypeScript EmbeddingProvider for static-bert GGUF models (the built-in
 * cortexd-glove-100d-sif model and anything else gguf/static-bert.ts writes): no native
 * code, ≈0.02 ms per short query, tens of thousands of chunks per second.
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
import { open } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { f16BitsToF32 } from "../gguf/f16.js";
import {
  readGgufInfo,
  readGgufTensor,
  ggufValue,
  tensorDataSize,
  type GgufInfo,
  type GgufTensorInfo,
} from "../gguf/reader.js";
import type { EmbeddingProvider, EmbedStats } from "../provider.js";
import { DEFAULT_CONTEXT } from "../defaults.js";
import { sha256File } from "../../util/hash.js";
import { localModelIdentity } from "../model-identity.js";

/** The same default as local-provider.ts: the two paths must truncate identically. */
const LOCAL_PROVIDER_DEFAULT_CONTEXT = DEFAULT_CONTEXT;
const WORD_PREFIX = "\u2581";

export class NotStaticBertError extends Error {
  override readonly name = "NotStaticBertError";
  constructor(file: string, reason: string) {
    super(`${file} is not a static-bert embedding model (${reason}); use the local provider (node-llama-cpp) for it`);
  }
}

// ---- tokenizer ----------------------------------------------------------------------------

/** llama.cpp's whitespace set (unicode-data.cpp unicode_set_whitespace), not JS \s (which adds U+FEFF). */
const WHITESPACE = new Set<number>([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
  0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);
const RE_CONTROL = /^[\p{Cc}\p{Cf}\p{Co}\p{Cs}]$/u; // llama.cpp's CONTROL flag: categories Cc Cf Co Cs (not Cn)
const RE_MARK = /^\p{M}$/u;
const RE_PUNCT = /^\p{P}$/u;
const RE_SYMBOL = /^\p{S}$/u;

function isChineseChar(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b920 && cp <= 0x2ceaf) || // sic, as in llama.cpp / HF
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}

const enum Kind {
  Skip = 0,
  Space = 1,
  /** A word of its own (punctuation, ASCII symbol, CJK ideograph). */
  Single = 2,
  Append = 3,
}

/** Classification of one input code point: what to do with it and the text it contributes. */
type CharClass = readonly [Kind, string];

export interface WordPieceOptions {
  lowercase: boolean;
  stripAccents: boolean;
}

/** llama.cpp's WordPiece pre-tokeniser (normalise + split into words), code point by code point. */
export class WordPiecePreTokenizer {
  private readonly ascii: CharClass[] = [];
  private readonly cache = new Map<number, CharClass>();

  constructor(readonly opts: WordPieceOptions) {
    for (let c = 0; c < 128; c++) this.ascii.push(this.classify(c));
  }

  private classify(cp0: number): CharClass {
    if (cp0 >= 0xd800 && cp0 <= 0xdfff) return [Kind.Skip, ""]; // lone surrogate: U+FFFD once UTF-8 encoded
    let cp = cp0;
    if (this.opts.stripAccents && cp >= 0x80) cp = String.fromCodePoint(cp).normalize("NFD").codePointAt(0)!;
    if (WHITESPACE.has(cp)) return [Kind.Space, ""];
    const ch = String.fromCodePoint(cp);
    if (cp === 0 || cp === 0xfffd || RE_CONTROL.test(ch)) return [Kind.Skip, ""];
    if (this.opts.stripAccents && RE_MARK.test(ch)) return [Kind.Skip, ""];
    let s = ch;
    if (this.opts.lowercase) {
      // unicode_tolower is a simple (1:1) mapping; JS's full mapping differs only for U+0130 → "i̇".
      const lower = ch.toLowerCase();
      s = String.fromCodePoint(lower.codePointAt(0)!);
    }
    if (RE_PUNCT.test(ch) || (cp < 0x7f && RE_SYMBOL.test(ch)) || isChineseChar(cp)) return [Kind.Single, s];
    return [Kind.Append, s];
  }

  private classOf(cp: number): CharClass {
    if (cp < 128) return this.ascii[cp]!;
    let c = this.cache.get(cp);
    if (c === undefined) {
      if (this.cache.size > 50_000) this.cache.clear();
      c = this.classify(cp);
      this.cache.set(cp, c);
    }
    return c;
  }

  /** The words llama.cpp's WordPiece tokenizer would match, in order. */
  words(text: string): string[] {
    const words: string[] = [];
    let cur = "";
    const n = text.length;
    for (let i = 0; i < n; i++) {
      let cp = text.charCodeAt(i);
      if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < n) {
        const lo = text.charCodeAt(i + 1);
        if (lo >= 0xdc00 && lo <= 0xdfff) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          i++;
        }
      }
      const [kind, s] = this.classOf(cp);
      switch (kind) {
        case Kind.Skip:
          break;
        case Kind.Space:
          if (cur) {
            words.push(cur);
            cur = "";
          }
          break;
        case Kind.Single:
          if (cur) {
            words.push(cur);
            cur = "";
          }
          words.push(s);
          break;
        case Kind.Append:
          cur += s;
          break;
      }
    }
    if (cur) words.push(cur);
    return words;
  }
}

/** Words whose WordPiece split is remembered (bounded; cleared when full). */
const PIECES_MAX = 50_000;

/** Greedy longest-match WordPiece over a token → id map, as llm_tokenizer_wpm_session::tokenize. */
export class WordPieceTokenizer {
  private readonly maxLen: number;
  private readonly pieces = new Map<string, readonly number[]>();
  readonly pre: WordPiecePreTokenizer;

  constructor(
    private readonly vocab: ReadonlyMap<string, number>,
    private readonly unkId: number,
    opts: WordPieceOptions,
  ) {
    let max = 1;
    for (const t of vocab.keys()) if (t.length > max) max = t.length;
    this.maxLen = max;
    this.pre = new WordPiecePreTokenizer(opts);
  }

  /** Token ids of `text`, without [CLS]/[SEP] (what node-llama-cpp's model.tokenize returns). */
  tokenize(text: string): number[] {
    const out: number[] = [];
    for (const word of this.pre.words(text)) this.word(word, out);
    return out;
  }

  private word(word: string, out: number[]): void {
    const w1 = WORD_PREFIX + word;
    const whole = this.vocab.get(w1);
    if (whole !== undefined) {
      // The first candidate llama.cpp tries is the longest, i.e. the whole word when it is a token.
      out.push(whole);
      return;
    }
    // A word that is not one token costs O(length × longest token) lookups: its pieces are kept
    // (words recur across every text a model embeds, so this is not a cache of queries).
    const known = this.pieces.get(word);
    if (known) {
      for (const id of known) out.push(id);
      return;
    }
    const first = out.length;
    this.split(w1, out);
    if (this.pieces.size >= PIECES_MAX) this.pieces.clear();
    this.pieces.set(word, out.slice(first));
  }

  private split(w1: string, out: number[]): void {
    const start = out.length;
    const n = w1.length;
    for (let i = 0; i < n;) {
      let next = -1;
      for (let j = Math.min(n, i + this.maxLen); j > i; j--) {
        const id = this.vocab.get(w1.slice(i, j));
        if (id !== undefined) {
          out.push(id);
          next = j;
          break;
        }
      }
      if (next < 0) {
        out.length = start; // discard the partial match: the whole word is unknown
        break;
      }
      i = next;
    }
    if (out.length === start) out.push(this.unkId);
  }
}

// ---- model --------------------------------------------------------------------------------

interface LayerNormParams {
  weight: Float32Array;
  bias: Float32Array;
}

function num(info: GgufInfo, key: string): number | undefined {
  const v = ggufValue(info, key);
  return typeof v === "number" ? v : typeof v === "bigint" ? Number(v) : undefined;
}

function allZero(a: Float32Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== 0) return false;
  return true;
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
 * Doing all 50k rows up front would cost ≈150 ms of startup and 20 MB that mostly go unused: a
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

export interface StaticBertModel {
  file: string;
  sha256: string;
  dims: number;
  vocabSize: number;
  contextLength: number;
  clsId: number;
  sepId: number;
  unkId: number;
  tokenizer: WordPieceTokenizer;
  /** Per token id, its output row after all LayerNorms. */
  rows: TokenRows;
  info: GgufInfo;
}

let f16Table: Float32Array | undefined;

/** F16 bit pattern → F32 value, as a 64K-entry table. */
function f16Decoder(): Float32Array {
  if (!f16Table) {
    f16Table = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) f16Table[h] = f16BitsToF32(h);
  }
  return f16Table;
}

/**
 * Like reader.ts's readGgufTensor, but decodes with typed-array views and a 64K-entry F16
 * table: ≈20× faster on the 5M-value token_embd (load time matters: the daemon starts with it).
 */
async function readTensorF32(file: string, info: GgufInfo, t: GgufTensorInfo): Promise<Float32Array> {
  const data = await readTensorStored(file, info, t);
  if (data instanceof Float32Array) return data;
  const f16 = f16Decoder();
  const out = new Float32Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = f16[data[i]!]!;
  return out;
}

/** A tensor's values as stored: F32 values, or F16 bit patterns (little-endian hosts; else decoded to F32). */
async function readTensorStored(file: string, info: GgufInfo, t: GgufTensorInfo): Promise<Float32Array | Uint16Array> {
  if (os.endianness() !== "LE") return readGgufTensor(file, info, t.name);
  const n = t.dims.reduce((a, b) => a * b, 1);
  const bytes = tensorDataSize(t)!;
  const raw = new Uint8Array(bytes); // own ArrayBuffer at offset 0: aligned for the views below
  const fh = await open(file, "r");
  try {
    let got = 0;
    while (got < bytes) {
      const { bytesRead } = await fh.read(raw, got, bytes - got, info.dataOffset + t.offset + got);
      if (bytesRead === 0) throw new Error(`${file}: tensor ${t.name} is truncated`);
      got += bytesRead;
    }
  } finally {
    await fh.close();
  }
  return t.ggmlType === 0 ? new Float32Array(raw.buffer, 0, n) : new Uint16Array(raw.buffer, 0, n);
}

/**
 * Load a static-bert GGUF. Throws NotStaticBertError
 * unless the file provably reduces to mean pooling of layer-normed token embeddings.
 */
export async function loadStaticBertModel(file: string): Promise<StaticBertModel> {
  const abs = path.resolve(file);
  const info = await readGgufInfo(abs);
  const refuse = (reason: string): never => {
    throw new NotStaticBertError(abs, reason);
  };
  if (ggufValue(info, "general.architecture") !== "bert") refuse("general.architecture is not bert");
  const marker = ggufValue(info, "cortexd.static_bert");
  if (marker !== undefined && marker !== "true") refuse(`cortexd.static_bert is ${JSON.stringify(marker)}`);
  if (ggufValue(info, "tokenizer.ggml.model") !== "bert")
    refuse("tokenizer is not WordPiece (tokenizer.ggml.model ≠ bert)");
  if (num(info, "bert.pooling_type") !== 1) refuse("pooling is not mean (bert.pooling_type ≠ 1)");
  if (ggufValue(info, "bert.attention.causal") === true) refuse("attention is causal");
  const dims = num(info, "bert.embedding_length");
  const blocks = num(info, "bert.block_count");
  const contextLength = num(info, "bert.context_length");
  const eps = ggufValue(info, "bert.attention.layer_norm_epsilon");
  if (!dims || !blocks || !contextLength || typeof eps !== "number") refuse("missing bert.* hyper-parameters");
  const tokens = ggufValue(info, "tokenizer.ggml.tokens");
  if (!Array.isArray(tokens) || tokens.some((t) => typeof t !== "string")) refuse("no tokenizer.ggml.tokens");
  const tokenTypes = ggufValue(info, "tokenizer.ggml.token_type");
  if (Array.isArray(tokenTypes) && tokenTypes.some((t) => t !== 1 && t !== 2 && t !== 3))
    refuse("vocabulary has user-defined or byte tokens, which this tokenizer does not handle");
  const unkId = num(info, "tokenizer.ggml.unknown_token_id");
  const clsId = num(info, "tokenizer.ggml.bos_token_id");
  const sepId = num(info, "tokenizer.ggml.seperator_token_id");
  const nVocab = (tokens as string[]).length;
  for (const [k, v] of [
    ["unknown", unkId],
    ["bos", clsId],
    ["seperator", sepId],
  ] as const)
    if (v === undefined || v < 0 || v >= nVocab) refuse(`tokenizer.ggml.${k}_token_id missing or out of range`);

  // Tensors: exactly the static-bert set, with every path other than LN(token_embd) zeroed.
  const byName = new Map<string, GgufTensorInfo>(info.tensors.map((t) => [t.name, t]));
  const allowed = new Set([
    "token_embd.weight",
    "position_embd.weight",
    "token_types.weight",
    "token_embd_norm.weight",
    "token_embd_norm.bias",
  ]);
  const blockParts = [
    "attn_qkv.weight",
    "attn_qkv.bias",
    "attn_q.weight",
    "attn_q.bias",
    "attn_k.weight",
    "attn_k.bias",
    "attn_v.weight",
    "attn_v.bias",
    "attn_output.weight",
    "attn_output.bias",
    "attn_output_norm.weight",
    "attn_output_norm.bias",
    "ffn_up.weight",
    "ffn_up.bias",
    "ffn_down.weight",
    "ffn_down.bias",
    "layer_output_norm.weight",
    "layer_output_norm.bias",
  ];
  for (let b = 0; b < blocks!; b++) for (const p of blockParts) allowed.add(`blk.${b}.${p}`);
  for (const t of info.tensors) if (!allowed.has(t.name)) refuse(`unexpected tensor ${t.name}`);
  const read = async (name: string, required: boolean): Promise<Float32Array | undefined> => {
    const t = byName.get(name);
    if (!t) return required ? refuse(`tensor ${name} is missing`) : undefined;
    if (t.ggmlType !== 0 && t.ggmlType !== 1) refuse(`tensor ${name} is quantized (ggml type ${t.ggmlType})`);
    return readTensorF32(abs, info, t);
  };
  const mustBeZero = async (name: string, required: boolean, rows?: number): Promise<void> => {
    const data = await read(name, required);
    if (data && !allZero(rows === undefined ? data : data.subarray(0, rows * dims!)))
      refuse(`tensor ${name} is not zero`);
  };
  const embT = byName.get("token_embd.weight");
  if (!embT || embT.dims[0] !== dims || embT.dims[1] !== nVocab)
    refuse("token_embd.weight is missing or not n_embd × n_vocab");
  await mustBeZero("position_embd.weight", true);
  await mustBeZero("token_types.weight", false, 1); // only type 0 is ever added
  const norms: LayerNormParams[] = [];
  const lnParams = async (prefix: string): Promise<void> => {
    const weight = (await read(`${prefix}.weight`, true))!;
    const bias = (await read(`${prefix}.bias`, false)) ?? new Float32Array(dims!);
    if (weight.length !== dims || bias.length !== dims) refuse(`${prefix} has the wrong size`);
    norms.push({ weight, bias });
  };
  await lnParams("token_embd_norm");
  for (let b = 0; b < blocks!; b++) {
    const p = `blk.${b}.`;
    await mustBeZero(`${p}attn_output.weight`, true);
    await mustBeZero(`${p}attn_output.bias`, false);
    await lnParams(`${p}attn_output_norm`);
    await mustBeZero(`${p}ffn_down.weight`, true);
    await mustBeZero(`${p}ffn_down.bias`, false);
    await lnParams(`${p}layer_output_norm`);
  }

  // Each token's output row is the LN chain of its embedding (positions/types are zero), on first use.
  if (embT!.ggmlType !== 0 && embT!.ggmlType !== 1)
    refuse(`tensor token_embd.weight is quantized (ggml type ${embT!.ggmlType})`);
  const rows = new TokenRows(await readTensorStored(abs, info, embT!), dims!, eps as number, norms);

  const lowercase = ggufValue(info, "tokenizer.ggml.normalizer.lowercase");
  const strip = ggufValue(info, "tokenizer.ggml.normalizer.strip_accents");
  const lc = typeof lowercase === "boolean" ? lowercase : true;
  const opts: WordPieceOptions = { lowercase: lc, stripAccents: typeof strip === "boolean" ? strip : lc };
  const vocab = new Map<string, number>();
  (tokens as string[]).forEach((t, i) => vocab.set(t, i)); // llama.cpp: the last duplicate wins (preflight rejects duplicates)

  return {
    file: abs,
    sha256: await sha256File(abs),
    dims: dims!,
    vocabSize: nVocab,
    contextLength: contextLength!,
    clsId: clsId!,
    sepId: sepId!,
    unkId: unkId!,
    tokenizer: new WordPieceTokenizer(vocab, unkId!, opts),
    rows,
    info,
  };
}

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
  for (let k = 0; k < count; k++) {
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
    const model = this.live();
    const { ids, truncated } = this.tokenize(text);
    if (truncated) this.counters.truncated++;
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
