import { embeddingsPath } from "./endpoint.js";
import { RemoteEmbeddingProvider, type InputKind, type RemoteProviderOptions } from "./base.js";
import { BadResponseError, HttpStatusError } from "./resilience.js";

export interface OpenAICompatibleOptions extends RemoteProviderOptions {
  /** The API key itself (read from the environment by the caller; never stored in config or logged). */
  apiKey?: string;
  /** `input_type` sent with query embeddings, for asymmetric endpoints (e.g. "query"). */
  queryInputType?: string;
  /** `input_type` sent with document embeddings (e.g. "passage" / "document"). */
  documentInputType?: string;
}

/**
 * POST {baseUrl}/v1/embeddings (or {baseUrl}/embeddings for a versioned base: endpoint.ts) — OpenAI, LM Studio, llama.cpp's server, vLLM, LocalAI, and the
 * many hosted APIs that speak the same protocol. Results are re-ordered by their `index`. Vectors
 * are requested as base64 float32 (`encoding_format`), which OpenAI, LM Studio, llama.cpp, vLLM and
 * most others support; number arrays (a server that ignores the parameter) are read too.
 */
export class OpenAICompatibleProvider extends RemoteEmbeddingProvider {
  // An ES private field: not enumerable, so the key never ends up in a serialised or logged object.
  readonly #apiKey: string | undefined;
  private readonly path: string;
  private readonly o: Omit<OpenAICompatibleOptions, "apiKey">;
  /** `encoding_format: "base64"` (~4x smaller responses, no float parsing): "no" once the server rejected it. */
  private base64: "unknown" | "yes" | "no" = "unknown";

  constructor({ apiKey, ...o }: OpenAICompatibleOptions) {
    super("openai-compatible", o);
    this.o = o;
    this.#apiKey = apiKey;
    // A full endpoint, a versioned base (…/v1, …/v1/openai) or a bare host: see endpoint.ts.
    this.path = embeddingsPath("openai-compatible", this.basePath);
  }

  protected override secrets(): string[] {
    return this.#apiKey ? [this.#apiKey] : [];
  }

  protected async request(texts: string[], kind: InputKind, signal: AbortSignal): Promise<ArrayLike<number>[]> {
    const inputType = kind === "query" ? this.o.queryInputType : this.o.documentInputType;
    const body = {
      model: this.modelName,
      input: texts,
      ...(this.o.dimensions ? { dimensions: this.o.dimensions } : {}),
      ...(inputType ? { input_type: inputType } : {}),
    };
    const headers: Record<string, string> = this.#apiKey ? { authorization: `Bearer ${this.#apiKey}` } : {};
    if (this.base64 === "no") return this.vectors(await this.postJson(this.path, body, headers, signal), texts.length);
    let json: unknown;
    try {
      json = await this.postJson(this.path, { ...body, encoding_format: "base64" }, headers, signal);
    } catch (e) {
      // A server that rejects the parameter (a 400/422 before base64 ever worked, or one that names
      // it): once more without it, and if that works, never again. Other 400s are the input's fault.
      const rejected =
        e instanceof HttpStatusError &&
        (e.status === 400 || e.status === 422) &&
        (this.base64 === "unknown" || /encoding_format|base64/i.test(e.message));
      if (!rejected) throw e;
      json = await this.postJson(this.path, body, headers, signal);
      this.base64 = "no";
      return this.vectors(json, texts.length);
    }
    this.base64 = "yes";
    return this.vectors(json, texts.length);
  }

  /**
   * `data[].embedding` in input order (sorted by `index`): base64 little-endian float32 decoded
   * straight into a Float32Array, or a number array from servers that ignore `encoding_format`.
   */
  private vectors(json: unknown, count: number): ArrayLike<number>[] {
    const data = (json as { data?: unknown } | null)?.data;
    if (!Array.isArray(data))
      throw new BadResponseError(`openai-compatible ${this.base.host}: response has no "data" array`);
    const out: ArrayLike<number>[] = new Array(data.length);
    const inOrder = data.length === count;
    data.forEach((d: { index?: unknown; embedding?: unknown } | null, pos) => {
      const e = d?.embedding;
      const v = typeof e === "string" ? decodeFloat32(e) : Array.isArray(e) ? (e as number[]) : null;
      const i = inOrder && typeof d?.index === "number" ? d.index : pos;
      if (!v || !Number.isInteger(i) || i < 0 || i >= data.length || out[i]) {
        throw new BadResponseError(`openai-compatible ${this.base.host}: malformed embedding at position ${pos}`);
      }
      out[i] = v;
    });
    return out; // a count mismatch is reported by the caller
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Base64 of little-endian float32s → Float32Array (decoded in place; no intermediate buffer), or null. */
export function decodeFloat32(b64: string): Float32Array | null {
  const pad = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  const bytes = Math.floor((b64.length * 3) / 4) - pad;
  if (bytes <= 0 || bytes % 4 !== 0) return null;
  const out = new Float32Array(bytes / 4);
  const view = Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  if (view.write(b64, "base64") !== bytes) return null;
  if (!LITTLE_ENDIAN) view.swap32();
  return out;
}
