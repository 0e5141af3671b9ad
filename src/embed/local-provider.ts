/**
 * The `local` embedding provider: any GGUF embedding model run by node-llama-cpp on CPU.
 * Guards against the node-llama-cpp traps in shared/notes/offline-embedding-model.md:
 * explicit threads, batchSize = contextSize, inputs truncated to fit the context (an
 * over-long input can abort the process), zero/empty vectors mapped to null, and files
 * pre-checked so a broken GGUF fails with ModelLoadError instead of killing the process.
 */
import { stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Llama, LlamaEmbeddingContext, LlamaModel, Token } from "node-llama-cpp";
import { ggufLoadProblem } from "./gguf/preflight.js";
import { GgufFormatError, readGgufInfo } from "./gguf/reader.js";
import type { EmbeddingProvider, EmbedStats } from "./provider.js";
import { DEFAULT_CONTEXT } from "./defaults.js";
import { localModelFileIdentity } from "./model-identity.js";

export interface LocalProviderOptions {
  /** A GGUF path, or an "hf:..." URI. */
  model: string;
  /** CPU threads for evaluation; default 1 (more threads are far slower for small models). */
  threads?: number;
  /** Default min(model's context length, 2048); always capped at the model's context length. */
  contextSize?: number;
  /** Default false: hf: URIs only resolve to an already-downloaded file. */
  allowDownload?: boolean;
  /** Give up resolving an hf: URI after this long (default 10 000 ms), even if node-llama-cpp hangs. */
  downloadTimeoutMs?: number;
  /** Where hf: models are cached (node-llama-cpp's default: ~/.node-llama-cpp/models). */
  modelsDir?: string;
}

/** The model could not be found, resolved, validated or loaded. */
export class ModelLoadError extends Error {
  override name = "ModelLoadError";
  constructor(
    readonly model: string,
    readonly reason: string,
    hint: string,
    options?: { cause?: unknown },
  ) {
    super(`Cannot load embedding model "${model}": ${reason}. ${hint}`.trim(), options);
  }
}

const HINT_PATH =
  'Point the embedding model setting at a GGUF embedding model file, or use the keyword-only provider ("none").';

// ---- shared llama.cpp runtime --------------------------------------------------------

/** Recent llama.cpp warn/error lines, attached to load errors. */
const recentLogs: string[] = [];
let logSink: ((level: string, message: string) => void) | undefined;

/** Receive llama.cpp log lines (warn and above). Default: none are printed. */
export function setLlamaLogSink(sink: ((level: string, message: string) => void) | undefined): void {
  logSink = sink;
}

let llamaPromise: Promise<Llama> | undefined;

/** One CPU-only Llama per process; never builds from source or downloads binaries. */
async function sharedLlama(): Promise<Llama> {
  llamaPromise ??= (async () => {
    const { getLlama, LlamaLogLevel } = await import("node-llama-cpp");
    return getLlama({
      gpu: false,
      build: "never",
      skipDownload: true,
      usePrebuiltBinaries: true,
      progressLogs: false,
      logLevel: LlamaLogLevel.warn,
      logger: (level, message) => {
        const line = `${level}: ${message.trimEnd()}`;
        recentLogs.push(line);
        if (recentLogs.length > 20) recentLogs.shift();
        logSink?.(level, message);
      },
    });
  })();
  try {
    return await llamaPromise;
  } catch (err) {
    llamaPromise = undefined;
    throw err;
  }
}

// ---- model file resolution -----------------------------------------------------------

async function resolveHfUri(opts: LocalProviderOptions): Promise<string> {
  const { resolveModelFile } = await import("node-llama-cpp");
  const allow = opts.allowDownload ?? false;
  const timeoutMs = opts.downloadTimeoutMs ?? 10_000;
  const ac = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ac.abort();
      reject(
        new ModelLoadError(
          opts.model,
          `resolving the model timed out after ${timeoutMs} ms`,
          "Check network access, or download the GGUF file yourself and set the model to its path.",
        ),
      );
    }, timeoutMs);
  });
  // resolveModelFile may ignore the signal and hang: race it, and swallow its late outcome.
  const work = resolveModelFile(opts.model, {
    download: allow ? "auto" : false,
    cli: false,
    signal: ac.signal,
    ...(opts.modelsDir !== undefined ? { directory: opts.modelsDir } : {}),
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, timeout]);
  } catch (err) {
    if (err instanceof ModelLoadError) throw err;
    const reason = err instanceof Error ? err.message.replace(/\.$/, "") : String(err);
    throw new ModelLoadError(
      opts.model,
      reason,
      allow
        ? "Check network access, or download the GGUF file yourself and set the model to its path."
        : "Downloads are disabled: download the GGUF file yourself and set the model to its path, or allow downloads.",
      { cause: err },
    );
  } finally {
    clearTimeout(timer);
  }
}

function expandHome(p: string): string {
  return p === "~" || p.startsWith("~/") ? path.join(os.homedir(), p.slice(1)) : p;
}

/** Resolve, then check the file is a readable, structurally valid GGUF that won't crash llama.cpp. */
async function resolveAndCheck(opts: LocalProviderOptions): Promise<string> {
  const file = opts.model.startsWith("hf:") ? await resolveHfUri(opts) : path.resolve(expandHome(opts.model));
  const st = await stat(file).catch((err: NodeJS.ErrnoException) => {
    throw new ModelLoadError(
      opts.model,
      err.code === "ENOENT" ? `file not found (${file})` : `cannot access ${file} (${err.code ?? err.message})`,
      HINT_PATH,
      { cause: err },
    );
  });
  if (!st.isFile()) throw new ModelLoadError(opts.model, `${file} is not a regular file`, HINT_PATH);
  let problem: string | undefined;
  try {
    problem = ggufLoadProblem(await readGgufInfo(file));
  } catch (err) {
    const reason =
      err instanceof GgufFormatError ? `not a valid GGUF file: ${err.message}` : `cannot read ${file}: ${String(err)}`;
    throw new ModelLoadError(opts.model, reason, HINT_PATH, { cause: err });
  }
  if (problem)
    throw new ModelLoadError(opts.model, `invalid GGUF model: ${problem}`, "Rebuild or re-download the model file.");
  return file;
}

// ---- provider ------------------------------------------------------------------------

/** Unit-length copy of `v`, or null for empty / zero / non-finite vectors (trap 4). */
function normalise(v: readonly number[], dims: number): Float32Array | null {
  if (v.length !== dims) return null;
  let sq = 0;
  for (const x of v) {
    if (!Number.isFinite(x)) return null;
    sq += x * x;
  }
  const norm = Math.sqrt(sq);
  if (!(norm > 1e-12) || !Number.isFinite(norm)) return null;
  const out = new Float32Array(dims);
  for (let i = 0; i < dims; i++) out[i] = v[i]! / norm;
  return out;
}

function intOption(name: string, v: number | undefined, fallback: number, min: number): number {
  const n = v ?? fallback;
  if (!Number.isInteger(n) || n < min)
    throw new RangeError(`local provider: ${name} must be an integer ≥ ${min} (got ${v})`);
  return n;
}

/** Load a GGUF embedding model with node-llama-cpp. Throws ModelLoadError on any load problem. */
export async function createLocalProvider(opts: LocalProviderOptions): Promise<EmbeddingProvider> {
  const threads = intOption("threads", opts.threads, 1, 1);
  const requestedCtx = intOption("contextSize", opts.contextSize, DEFAULT_CONTEXT, 8);
  const file = await resolveAndCheck(opts);
  const identity = await localModelFileIdentity(file);

  let llama: Llama;
  try {
    llama = await sharedLlama();
  } catch (err) {
    throw new ModelLoadError(
      opts.model,
      `node-llama-cpp could not start (${String(err)})`,
      "Reinstall node-llama-cpp so its prebuilt binary for this platform is present.",
      { cause: err },
    );
  }
  recentLogs.length = 0;
  let model: LlamaModel;
  try {
    model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
  } catch (err) {
    const detail = recentLogs.filter((l) => l.startsWith("error")).join("; ");
    throw new ModelLoadError(
      opts.model,
      `llama.cpp failed to load it (${err instanceof Error ? err.message : String(err)}${detail ? `: ${detail}` : ""})`,
      "The file may be corrupt, incomplete, or not a model llama.cpp supports.",
      { cause: err },
    );
  }
  const dims = model.embeddingVectorSize;
  const contextSize = Math.min(requestedCtx, model.trainContextSize > 0 ? model.trainContextSize : requestedCtx);
  let ctx: LlamaEmbeddingContext;
  try {
    if (!(dims > 0)) throw new Error("model reports no embedding size");
    // batchSize = contextSize: otherwise only the last batch is pooled (trap 2).
    ctx = await model.createEmbeddingContext({ contextSize, batchSize: contextSize, threads });
  } catch (err) {
    await model.dispose().catch(() => undefined);
    throw new ModelLoadError(
      opts.model,
      `cannot create an embedding context (${err instanceof Error ? err.message : String(err)})`,
      "Try a smaller contextSize, or check that the model is an embedding model.",
      { cause: err },
    );
  }
  // node-llama-cpp adds [CLS]/[SEP] (or BOS/EOS) and rejects inputs with length ≥ contextSize.
  const maxTokens = Math.max(1, contextSize - 3);
  return new LocalProvider(
    identity,
    path.basename(opts.model.startsWith("hf:") ? opts.model : file),
    dims,
    model,
    ctx,
    maxTokens,
  );
}

class LocalProvider implements EmbeddingProvider {
  private readonly counters: EmbedStats = { embedded: 0, truncated: 0, empty: 0 };
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    readonly identity: string,
    readonly modelName: string,
    readonly dims: number,
    private readonly model: LlamaModel,
    private readonly ctx: LlamaEmbeddingContext,
    private readonly maxTokens: number,
  ) {}

  embedBatch(texts: readonly string[]): Promise<(Float32Array | null)[]> {
    if (this.closed) return Promise.reject(new Error("local embedding provider is closed"));
    const run = this.queue.then(async () => {
      const out: (Float32Array | null)[] = [];
      for (const text of texts) out.push(await this.embedOne(text));
      return out;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async embedOne(text: string): Promise<Float32Array | null> {
    let tokens: Token[] = this.model.tokenize(text);
    if (tokens.length > this.maxTokens) {
      tokens = tokens.slice(0, this.maxTokens);
      this.counters.truncated++;
    }
    const vec = tokens.length === 0 ? null : normalise((await this.ctx.getEmbeddingFor(tokens)).vector, this.dims);
    if (vec) this.counters.embedded++;
    else this.counters.empty++;
    return vec;
  }

  stats(): EmbedStats {
    return { ...this.counters };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue;
    await this.ctx.dispose();
    await this.model.dispose();
  }
}
