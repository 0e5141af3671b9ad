import type { Logger } from "pino";
import type { EmbeddingProvider, EmbedStats } from "../provider.js";
import { KeepAliveClient } from "./http.js";
import {
  BadResponseError,
  HttpStatusError,
  ResilientCaller,
  parseRetryAfter,
  planBatches,
  type RemoteHealth,
  type ResilienceOptions,
} from "./resilience.js";
import { errorMessage } from "../../util/error-message.js";

export type InputKind = "query" | "document";

export interface RemoteProviderOptions {
  /** e.g. http://127.0.0.1:11434 or https://api.openai.com (a trailing /v1 is accepted). */
  baseUrl: string;
  model: string;
  /** Requested output dimension (sent to endpoints that support it); otherwise learned from the first response. */
  dimensions?: number;
  timeoutMs?: number;
  maxRetries?: number;
  /** Texts per request. */
  batchSize?: number;
  /** Estimated tokens per request. */
  batchTokens?: number;
  logger?: Logger;
  /** Overrides for backoff and gate timings (tests, bench). */
  resilience?: Partial<Omit<ResilienceOptions, "name" | "timeoutMs" | "maxRetries" | "logger">>;
}

/** Strips trailing slashes; throws on anything that is not an http(s) URL. */
export function normaliseBaseUrl(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`embedding.baseUrl is not a URL: ${url}`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error(`embedding.baseUrl must be http(s): ${url}`);
  u.username = "";
  u.password = "";
  u.search = "";
  u.hash = "";
  return u;
}

/**
 * A unit-length Float32Array, or null (non-finite or all-zero). A Float32Array the protocol
 * decoded for us is normalised in place (no copy); number arrays are converted once.
 */
function normalise(v: ArrayLike<number>): Float32Array | null {
  const out = v instanceof Float32Array ? v : Float32Array.from(v);
  let sum = 0;
  for (let i = 0; i < out.length; i++) {
    const x = out[i]!;
    sum += x * x;
  }
  // NaN or ±Infinity anywhere makes the sum non-finite.
  if (sum === 0 || !Number.isFinite(sum)) return null;
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < out.length; i++) out[i]! *= inv;
  return out;
}

/**
 * Common part of the HTTP providers: batching, empty inputs, normalisation, the dimension check
 * (the first response fixes it) and the resilience wrapper. Subclasses only speak the protocol.
 */
export abstract class RemoteEmbeddingProvider implements EmbeddingProvider {
  readonly modelName: string;
  protected readonly base: URL;
  /** The base URL's path without trailing slashes ("" for none). */
  protected readonly basePath: string;
  protected readonly caller: ResilientCaller;
  private readonly http: KeepAliveClient;
  private learnedDims: number | undefined;
  private readonly counters: EmbedStats = { embedded: 0, truncated: 0, empty: 0 };
  private readonly batchSize: number;
  private readonly batchTokens: number;

  constructor(
    readonly kind: "openai-compatible" | "ollama",
    protected readonly opts: RemoteProviderOptions,
  ) {
    this.base = normaliseBaseUrl(opts.baseUrl);
    this.basePath = this.base.pathname.replace(/\/+$/, "");
    this.modelName = opts.model;
    this.batchSize = opts.batchSize ?? 64;
    this.batchTokens = opts.batchTokens ?? 8192;
    this.http = new KeepAliveClient(this.base);
    this.caller = new ResilientCaller({
      ...opts.resilience,
      name: `${kind} ${this.base.host}`,
      timeoutMs: opts.timeoutMs ?? 30_000,
      maxRetries: opts.maxRetries ?? 4,
      ...(opts.logger ? { logger: opts.logger } : {}),
    });
  }

  /** Vector length: the configured `dimensions`, else what the first response returned; 0 until known. */
  get dims(): number {
    return this.learnedDims ?? this.opts.dimensions ?? 0;
  }

  /** `<kind>:<host>:<model>:<dims>`; part of the embedding cache key. */
  get identity(): string {
    return `${this.kind}:${this.base.host}:${this.modelName}:${this.dims || "?"}`;
  }

  health(): RemoteHealth {
    return this.caller.health();
  }

  stats(): EmbedStats {
    return { ...this.counters };
  }

  /** One small embed, to learn the dimension and check the endpoint. Throws what the endpoint did. */
  async probe(): Promise<number> {
    const [v] = await this.embed(["cortexd embedding probe"], "document");
    if (!v) throw new BadResponseError(`${this.kind} returned no usable vector for the probe`);
    return this.dims;
  }

  embedBatch(texts: readonly string[]): Promise<(Float32Array | null)[]> {
    return this.embed(texts, "document");
  }

  /** Embeds search queries (asymmetric endpoints use `queryInputType`). */
  embedQueries(texts: readonly string[]): Promise<(Float32Array | null)[]> {
    return this.embed(texts, "query");
  }

  async embed(texts: readonly string[], kind: InputKind): Promise<(Float32Array | null)[]> {
    const out: (Float32Array | null)[] = new Array<Float32Array | null>(texts.length).fill(null);
    const idx: number[] = [];
    for (let i = 0; i < texts.length; i++) if (texts[i]!.trim() !== "") idx.push(i);
    const send = idx.map((i) => texts[i]!);
    for (const [s, e] of planBatches(send, this.batchSize, this.batchTokens)) {
      const part = send.slice(s, e);
      const raw = await this.caller.call((signal) => this.request(part, kind, signal));
      if (raw.length !== part.length)
        throw new BadResponseError(`${this.kind} returned ${raw.length} embeddings for ${part.length} inputs`);
      for (let j = 0; j < raw.length; j++) {
        const r = raw[j]!;
        const want = this.learnedDims ?? this.opts.dimensions;
        if (want !== undefined && r.length !== want) {
          throw new BadResponseError(
            `${this.kind} ${this.modelName} returned ${r.length}-dimensional vectors, expected ${want} (model or dimension changed?)`,
          );
        }
        if (r.length === 0) throw new BadResponseError(`${this.kind} returned an empty vector`);
        this.learnedDims ??= r.length;
        out[idx[s + j]!] = normalise(r);
      }
    }
    for (const v of out) {
      if (v) this.counters.embedded++;
      else this.counters.empty++;
    }
    return out;
  }

  async close(): Promise<void> {
    this.http.close();
  }

  /**
   * One HTTP request for a batch; returns the raw vectors in input order. A Float32Array returned
   * here belongs to the caller, which normalises it in place.
   */
  protected abstract request(texts: string[], kind: InputKind, signal: AbortSignal): Promise<ArrayLike<number>[]>;

  /** Secrets to scrub from error messages. */
  protected secrets(): string[] {
    return [];
  }

  /** POSTs JSON; maps non-2xx to HttpStatusError (with Retry-After) and scrubs secrets from messages. */
  protected async postJson(
    path: string,
    body: unknown,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<unknown> {
    let res;
    try {
      res = await this.http.post(`${this.base.origin}${this.basePath}${path}`, JSON.stringify(body), headers, signal);
    } catch (e) {
      if (signal.aborted) throw e;
      throw new Error(
        this.scrub(`${this.kind} ${this.base.host}: ${(e as NodeJS.ErrnoException).code ?? errorMessage(e)}`),
        { cause: e },
      );
    }
    const text = res.body.toString("utf8");
    if (res.status < 200 || res.status > 299) {
      const detail = text.replace(/\s+/g, " ").slice(0, 200);
      throw new HttpStatusError(
        res.status,
        this.scrub(`${this.kind} ${this.base.host}: HTTP ${res.status}${detail ? `: ${detail}` : ""}`),
        parseRetryAfter(res.retryAfter, Date.now()),
      );
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new BadResponseError(`${this.kind} ${this.base.host}: response is not JSON`);
    }
  }

  private scrub(s: string): string {
    for (const k of this.secrets()) if (k) s = s.split(k).join("***");
    return s;
  }
}
