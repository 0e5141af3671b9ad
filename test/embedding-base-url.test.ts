import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OllamaProvider } from "../src/embed/remote/ollama.js";
import { OpenAICompatibleProvider } from "../src/embed/remote/openai-compatible.js";

/**
 * Base URLs as providers document them, against a real HTTP server on 127.0.0.1 that records the
 * path each request went to and answers both protocols.
 */
let server: Server;
let origin = "";
const paths: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      paths.push(req.url ?? "");
      const input = (JSON.parse(body) as { input: string[] }).input;
      const vectors = input.map((_, i) => [1, i + 1, 0.5]);
      res.setHeader("content-type", "application/json");
      if (req.url?.includes("/api/embed")) res.end(JSON.stringify({ embeddings: vectors }));
      else res.end(JSON.stringify({ data: vectors.map((embedding, index) => ({ index, embedding })) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(() => server?.close());

async function pathFor(make: () => { embedBatch(t: string[]): Promise<unknown>; close(): Promise<void> }) {
  paths.length = 0;
  const p = make();
  try {
    await p.embedBatch(["hello"]);
  } finally {
    await p.close();
  }
  return paths[0];
}

describe("embedding.baseUrl as providers document it", () => {
  const openai = (base: string) =>
    pathFor(() => new OpenAICompatibleProvider({ baseUrl: `${origin}${base}`, model: "m", maxRetries: 0 }));
  const cases: [string, string][] = [
    ["", "/v1/embeddings"], // LM Studio, llama.cpp's server: the host
    ["/", "/v1/embeddings"],
    ["/v1", "/v1/embeddings"], // OpenAI, Mistral, Together
    ["/v1/", "/v1/embeddings"],
    ["/v1/openai", "/v1/openai/embeddings"], // DeepInfra
    ["/v1beta/openai/", "/v1beta/openai/embeddings"], // Gemini
    ["/api/v1", "/api/v1/embeddings"], // OpenRouter
    ["/compatible-mode/v1", "/compatible-mode/v1/embeddings"], // DashScope
    ["/v1/embeddings", "/v1/embeddings"], // a full endpoint (Jina, Voyage document it so)
    ["/proxy", "/proxy/v1/embeddings"], // a path prefix without a version
  ];
  for (const [base, want] of cases)
    it(`openai-compatible "${base || "(host)"}" → ${want}`, async () => {
      expect(await openai(base)).toBe(want);
    });

  const ollama = (base: string) =>
    pathFor(() => new OllamaProvider({ baseUrl: `${origin}${base}`, model: "m", maxRetries: 0 }));
  for (const [base, want] of [
    ["", "/api/embed"],
    ["/api", "/api/embed"],
    ["/api/embed", "/api/embed"],
    ["/ollama", "/ollama/api/embed"],
  ] as const)
    it(`ollama "${base || "(host)"}" → ${want}`, async () => {
      expect(await ollama(base)).toBe(want);
    });
});
