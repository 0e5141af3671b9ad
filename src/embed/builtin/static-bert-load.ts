/**
 * Loads a static-bert GGUF for the pure-TypeScript provider, refusing (NotStaticBertError) any
 * file that does not provably reduce to mean pooling of layer-normed token embeddings.
 */
import { open } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  readGgufInfo,
  readGgufTensor,
  ggufValue,
  tensorDataSize,
  type GgufInfo,
  type GgufTensorInfo,
} from "../gguf/reader.js";
import { sha256File } from "../../util/hash.js";
import { f16Decoder, TokenRows, type LayerNormParams } from "./token-rows.js";
import { WordPieceTokenizer, type WordPieceOptions } from "./wordpiece.js";

export class NotStaticBertError extends Error {
  override readonly name = "NotStaticBertError";
  constructor(file: string, reason: string) {
    super(`${file} is not a static-bert embedding model (${reason}); use the local provider (node-llama-cpp) for it`);
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

function num(info: GgufInfo, key: string): number | undefined {
  const v = ggufValue(info, key);
  return typeof v === "number" ? v : typeof v === "bigint" ? Number(v) : undefined;
}

function allZero(a: Float32Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== 0) return false;
  return true;
}

/**
 * Like reader.ts's readGgufTensor, but decodes with typed-array views and a 64K-entry F16
 * table: much faster on a large token_embd (load time matters: the daemon starts with it).
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
