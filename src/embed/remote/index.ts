import type { Logger } from "pino";
import type { EmbeddingConfig } from "../../config/schema.js";
import type { RemoteEmbeddingProvider, RemoteProviderOptions } from "./base.js";
import { OLLAMA_DEFAULT_URL, OllamaProvider } from "./ollama.js";
import { OpenAICompatibleProvider } from "./openai-compatible.js";

export { RemoteEmbeddingProvider } from "./base.js";
export type RemoteKind = "openai-compatible" | "ollama";

export const OPENAI_DEFAULT_URL = "https://api.openai.com";

export function isRemoteProvider(provider: EmbeddingConfig["provider"]): provider is RemoteKind {
  return provider === "openai-compatible" || provider === "ollama";
}

/**
 * Builds the configured remote provider without any network call (the dimension is learned on the
 * first embed, or taken from `dimensions`). The API key is read from the environment variable named
 * by `apiKeyEnv`; a named variable that is unset is an error.
 */
export function createRemoteProvider(
  cfg: EmbeddingConfig,
  opts: { logger?: Logger; env?: NodeJS.ProcessEnv; resilience?: RemoteProviderOptions["resilience"] } = {},
): RemoteEmbeddingProvider {
  if (!isRemoteProvider(cfg.provider)) throw new Error(`not a remote provider: ${cfg.provider}`);
  if (!cfg.model)
    throw new Error(
      `embedding.provider is "${cfg.provider}" but embedding.model (the model name on the server) is not set`,
    );
  const common: RemoteProviderOptions = {
    baseUrl: cfg.baseUrl ?? (cfg.provider === "ollama" ? OLLAMA_DEFAULT_URL : OPENAI_DEFAULT_URL),
    model: cfg.model,
    ...(cfg.dimensions ? { dimensions: cfg.dimensions } : {}),
    timeoutMs: cfg.timeoutMs,
    maxRetries: cfg.maxRetries,
    batchSize: cfg.batchSize,
    batchTokens: cfg.batchTokens,
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(opts.resilience ? { resilience: opts.resilience } : {}),
  };
  if (cfg.provider === "ollama") return new OllamaProvider(common);
  let apiKey: string | undefined;
  if (cfg.apiKeyEnv) {
    apiKey = (opts.env ?? process.env)[cfg.apiKeyEnv];
    if (!apiKey) throw new Error(`environment variable ${cfg.apiKeyEnv} (embedding.apiKeyEnv) is not set`);
  }
  return new OpenAICompatibleProvider({
    ...common,
    ...(apiKey ? { apiKey } : {}),
    ...(cfg.queryInputType ? { queryInputType: cfg.queryInputType } : {}),
    ...(cfg.documentInputType ? { documentInputType: cfg.documentInputType } : {}),
  });
}
