import { embeddingsPath } from "./endpoint.js";
import { RemoteEmbeddingProvider, type InputKind, type RemoteProviderOptions } from "./base.js";
import { BadResponseError } from "./resilience.js";

export const OLLAMA_DEFAULT_URL = "http://127.0.0.1:11434";

/** POST {baseUrl}/api/embed {model, input: string[]} → {embeddings: number[][]} (Ollama ≥ 0.3). */
export class OllamaProvider extends RemoteEmbeddingProvider {
  private readonly path: string;

  constructor(o: RemoteProviderOptions) {
    super("ollama", o);
    this.path = embeddingsPath("ollama", this.basePath);
  }

  protected async request(texts: string[], _kind: InputKind, signal: AbortSignal): Promise<ArrayLike<number>[]> {
    const body = {
      model: this.modelName,
      input: texts,
      truncate: true,
      ...(this.opts.dimensions ? { dimensions: this.opts.dimensions } : {}),
    };
    const json = (await this.postJson(this.path, body, {}, signal)) as { embeddings?: unknown };
    if (!json || !Array.isArray(json.embeddings) || !json.embeddings.every((e) => Array.isArray(e))) {
      throw new BadResponseError(`ollama ${this.base.host}: response has no "embeddings" array`);
    }
    return json.embeddings as number[][];
  }
}
