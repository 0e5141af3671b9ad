import { RemoteEmbeddingProvider, type InputKind, type RemoteProviderOptions } from "./base.js";
import { BadResponseError } from "./resilience.js";

export interface OpenAICompatibleOptions extends RemoteProviderOptions {
  /** The API key itself (read from the environment by the caller; never stored in config or logged). */
  apiKey?: string;
  /** `input_type` sent with query embeddings, for asymmetric endpoints (e.g. "query"). */
  queryInputType?: string;
  /** `input_type` sent with document embeddings (e.g. "passage" / "document"). */
  documentInputType?: string;
}

/**
 * POST {baseUrl}/v1/embeddings — OpenAI, LM Studio, llama.cpp's server, vLLM, LocalAI, and the
 * many hosted APIs that speak the same protocol. Results are re-ordered by their `index`.
 */
export class OpenAICompatibleProvider extends RemoteEmbeddingProvider {
  // An ES private field: not enumerable, so the key never ends up in a serialised or logged object.
  readonly #apiKey: string | undefined;
  private readonly path: string;
  private readonly o: Omit<OpenAICompatibleOptions, "apiKey">;

  constructor({ apiKey, ...o }: OpenAICompatibleOptions) {
    super("openai-compatible", o);
    this.o = o;
    this.#apiKey = apiKey;
    // Accept both https://host and https://host/v1 as the base URL.
    this.path = this.basePath.endsWith("/v1") ? "/embeddings" : "/v1/embeddings";
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
    const json = (await this.postJson(this.path, body, headers, signal)) as { data?: { index?: number; embedding?: unknown }[] };
    if (!json || !Array.isArray(json.data)) throw new BadResponseError(`openai-compatible ${this.base.host}: response has no "data" array`);
    const out: ArrayLike<number>[] = new Array(texts.length);
    json.data.forEach((d, pos) => {
      const i = typeof d.index === "number" ? d.index : pos;
      if (!Array.isArray(d.embedding) || i < 0 || i >= texts.length || out[i]) {
        throw new BadResponseError(`openai-compatible ${this.base.host}: malformed embedding at position ${pos}`);
      }
      out[i] = d.embedding as number[];
    });
    if (json.data.length !== texts.length) return json.data.map((d) => d.embedding as number[]); // count mismatch reported by the caller
    return out;
  }
}
