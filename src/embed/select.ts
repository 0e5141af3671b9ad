import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { Logger } from "pino";
import type { EmbeddingConfig } from "../config/schema.js";
import type { EmbeddingProvider } from "./provider.js";
import { errorMessage } from "../util/error-message.js";

/** What the embedding side is doing, for status and search fallbacks. */
export interface ProviderStatus {
  /** ready: vectors on. keyword-only: by choice or because nothing could load (auto). error: a configured model failed. */
  state: "ready" | "keyword-only" | "error";
  provider: EmbeddingConfig["provider"];
  model?: string;
  identity?: string;
  dims?: number;
  /** Why vectors are off, or what failed. */
  reason?: string;
  /** "configured" | "builtin" */
  source?: "configured" | "builtin";
  /** The model file in use (local GGUF paths and the built-in model), checked by the heartbeat. */
  file?: string;
  /** Vectors work but something needs attention (e.g. the model file was deleted while running). */
  warning?: string;
}

export interface SelectedProvider {
  provider: EmbeddingProvider | null;
  status: ProviderStatus;
}

export interface SelectOptions {
  dataDir: string;
  logger?: Logger;
  onBuildProgress?: (p: { phase: string; done: number; total: number }) => void;
  /** Remote providers: environment (for apiKeyEnv) and backoff/gate overrides (tests). */
  remote?: { env?: NodeJS.ProcessEnv; resilience?: import("./remote/base.js").RemoteProviderOptions["resilience"] };
}

export function modelsDir(dataDir: string): string {
  return join(dataDir, "models");
}

function ready(
  p: EmbeddingProvider,
  cfg: EmbeddingConfig,
  source: "configured" | "builtin",
  file?: string,
): SelectedProvider {
  return {
    provider: p,
    status: {
      state: "ready",
      provider: cfg.provider,
      model: p.modelName,
      identity: p.identity,
      dims: p.dims,
      source,
      ...(file ? { file } : {}),
    },
  };
}

/** The file a configured local model is read from (hf: URIs live in a cache: not tracked). */
export function configuredFile(cfg: EmbeddingConfig): string | undefined {
  return cfg.model && !cfg.model.startsWith("hf:") ? resolve(cfg.model.replace(/^~(?=\/|$)/, homedir())) : undefined;
}

async function loadConfigured(cfg: EmbeddingConfig, opts: SelectOptions): Promise<EmbeddingProvider> {
  const { createLocalProvider } = await import("./local-provider.js");
  return createLocalProvider({
    model: cfg.model!,
    threads: cfg.threads,
    ...(cfg.contextSize ? { contextSize: cfg.contextSize } : {}),
    allowDownload: cfg.allowDownload,
    modelsDir: modelsDir(opts.dataDir),
  });
}

async function loadBuiltin(cfg: EmbeddingConfig, opts: SelectOptions): Promise<EmbeddingProvider> {
  const { ensureBuiltinModel } = await import("./builtin/ensure.js");
  const { createStaticBertProvider } = await import("./builtin/fast-provider.js");
  const path = await ensureBuiltinModel(
    modelsDir(opts.dataDir),
    opts.onBuildProgress ? { onProgress: opts.onBuildProgress } : {},
  );
  return createStaticBertProvider(path);
}

/**
 * Chooses the embedding provider:
 * - none: keyword only;
 * - local: the configured model, or an error (never silently replaced);
 * - openai-compatible / ollama: the configured endpoint, probed once (one small embed) to learn the
 *   dimension; if it is down, an error with the reason (never silently replaced);
 * - auto: the configured model if one is set (its failure is an error), else the built-in model
 *   (built on first use), else keyword-only with the reason.
 */
export async function selectProvider(cfg: EmbeddingConfig, opts: SelectOptions): Promise<SelectedProvider> {
  if (cfg.provider === "none") {
    return {
      provider: null,
      status: { state: "keyword-only", provider: "none", reason: 'embedding.provider is "none"' },
    };
  }
  if (cfg.provider === "openai-compatible" || cfg.provider === "ollama") return selectRemote(cfg, opts);
  if (cfg.model) {
    try {
      return ready(await loadConfigured(cfg, opts), cfg, "configured", configuredFile(cfg));
    } catch (e) {
      const reason = `configured model ${cfg.model} failed to load: ${errorMessage(e)}`;
      opts.logger?.error(
        { model: cfg.model, err: errorMessage(e) },
        "embedding model failed to load; keyword search only",
      );
      return {
        provider: null,
        status: { state: "error", provider: cfg.provider, model: cfg.model, reason, source: "configured" },
      };
    }
  }
  if (cfg.provider === "local") {
    return {
      provider: null,
      status: {
        state: "error",
        provider: "local",
        reason: 'embedding.provider is "local" but embedding.model is not set (a GGUF path)',
      },
    };
  }
  try {
    const { builtinModelPath } = await import("./builtin/ensure.js");
    return ready(await loadBuiltin(cfg, opts), cfg, "builtin", builtinModelPath(modelsDir(opts.dataDir)));
  } catch (e) {
    const reason = `built-in model unavailable: ${errorMessage(e)}`;
    opts.logger?.warn({ err: errorMessage(e) }, "built-in embedding model unavailable; keyword search only");
    return { provider: null, status: { state: "keyword-only", provider: "auto", reason, source: "builtin" } };
  }
}

/** A remote endpoint: constructed without a network call, then probed once to learn its dimension. */
async function selectRemote(cfg: EmbeddingConfig, opts: SelectOptions): Promise<SelectedProvider> {
  const { createRemoteProvider } = await import("./remote/index.js");
  const where = `${cfg.provider}${cfg.baseUrl ? ` at ${cfg.baseUrl}` : ""}${cfg.model ? ` (model ${cfg.model})` : ""}`;
  let p;
  try {
    p = createRemoteProvider(cfg, { ...(opts.logger ? { logger: opts.logger } : {}), ...(opts.remote ?? {}) });
    await p.probe();
    return ready(p, cfg, "configured");
  } catch (e) {
    await p?.close();
    const reason = `${where} unavailable: ${errorMessage(e)}`;
    opts.logger?.error(
      { provider: cfg.provider, model: cfg.model, err: errorMessage(e) },
      "embedding provider unavailable; keyword search only",
    );
    return {
      provider: null,
      status: {
        state: "error",
        provider: cfg.provider,
        ...(cfg.model ? { model: cfg.model } : {}),
        reason,
        source: "configured",
      },
    };
  }
}
