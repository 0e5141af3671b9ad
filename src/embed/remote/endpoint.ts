/**
 * The request path for a configured base URL, as providers document their base URLs:
 *
 * - a full endpoint (…/embeddings, Ollama's …/api/embed) is used as it is;
 * - a base naming an API version anywhere in its path (OpenAI `…/v1`, Gemini `…/v1beta/openai`,
 *   DeepInfra `…/v1/openai`, OpenRouter `…/api/v1`, DashScope `…/compatible-mode/v1`) gets the
 *   endpoint joined to it: `…/embeddings`;
 * - a bare host (LM Studio, llama.cpp's server: `http://127.0.0.1:1234`) or a plain path prefix
 *   without a version gets `/v1/embeddings`.
 *
 * Ollama's native API: a bare host or a prefix gets `/api/embed`, a base ending in `/api` gets `/embed`.
 */
const VERSION_SEGMENT = /^v\d+[a-z0-9]*$/i;

export function embeddingsPath(kind: "openai-compatible" | "ollama", basePath: string): string {
  const path = basePath.replace(/\/+$/, "");
  const segments = path.split("/").filter(Boolean);
  if (kind === "ollama") {
    if (path.endsWith("/api/embed")) return "";
    return path.endsWith("/api") ? "/embed" : "/api/embed";
  }
  if (segments.at(-1) === "embeddings") return "";
  return segments.some((s) => VERSION_SEGMENT.test(s)) ? "/embeddings" : "/v1/embeddings";
}
