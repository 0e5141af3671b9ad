/**
 * Checks for GGUF metadata mistakes that make llama.cpp abort the whole process
 * (GGML_ASSERT / uncaught C++ exception, exit 134) instead of failing the load.
 * All were observed with node-llama-cpp 3.21 on a static-bert file.
 */
import { ggufValue, type GgufInfo } from "./reader.js";

/** A human-readable reason why loading `info` would crash or be useless, or undefined. */
/** Integer metadata as a number (GGUF writers differ in u32/i32/u64 choice). */
function num(info: Pick<GgufInfo, "kv">, key: string): number | undefined {
  const v = ggufValue(info, key);
  return typeof v === "number" ? v : typeof v === "bigint" ? Number(v) : undefined;
}

export function ggufLoadProblem(info: Pick<GgufInfo, "kv">): string | undefined {
  const arch = ggufValue(info, "general.architecture");
  if (typeof arch !== "string" || arch === "") return "metadata general.architecture is missing";
  const blocks = num(info, `${arch}.block_count`);
  if (blocks !== undefined && blocks < 1) return `${arch}.block_count must be ≥ 1 (is ${blocks})`;
  if (arch === "bert") {
    for (const key of ["block_count", "feed_forward_length", "embedding_length", "attention.head_count"]) {
      const v = num(info, `${arch}.${key}`);
      if (v === undefined || v < 1) return `metadata ${arch}.${key} is missing or zero`;
    }
    if (ggufValue(info, "bert.pooling_type") === undefined)
      return "metadata bert.pooling_type is missing (the model would return all-zero embeddings)";
  }
  const tokens = ggufValue(info, "tokenizer.ggml.tokens");
  if (Array.isArray(tokens)) {
    const seen = new Set<unknown>();
    for (const t of tokens) {
      if (seen.has(t)) return `tokenizer.ggml.tokens contains the duplicate token ${JSON.stringify(t)}`;
      seen.add(t);
    }
    if (ggufValue(info, "tokenizer.ggml.model") === "bert") {
      const unk = num(info, "tokenizer.ggml.unknown_token_id");
      if (unk === undefined || unk < 0 || unk >= tokens.length)
        return "tokenizer.ggml.unknown_token_id is missing or out of range (required by the WordPiece tokenizer)";
    }
  }
  return undefined;
}
