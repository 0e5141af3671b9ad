/**
 * Remote embedding providers (openai-compatible, ollama) against a real HTTP server on 127.0.0.1
 * that serves vectors computed by the built-in model and injects failures.
 * Uses the built-in model cached in os.tmpdir()/cortexd-test-models/builtin-v<builder version>.
 */
import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import fc from "fast-check";
import pino from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EmbeddingSchema } from "../src/config/schema.js";
import { countTokens } from "../src/ingest/tokens.js";
import { BUILTIN_BUILDER_VERSION } from "../src/embed/builtin/build.js";
import { ensureBuiltinModel } from "../src/embed/builtin/ensure.js";
import { createStaticBertProvider, type StaticBertProvider } from "../src/embed/builtin/fast-provider.js";
import type { EmbeddingProvider } from "../src/embed/provider.js";
import type { RemoteEmbeddingProvider } from "../src/embed/remote/base.js";
import { createRemoteProvider } from "../src/embed/remote/index.js";
import { OllamaProvider } from "../src/embed/remote/ollama.js";
import { decodeFloat32, OpenAICompatibleProvider } from "../src/embed/remote/openai-compatible.js";
import { BadResponseError, GateClosedError, planBatches } from "../src/embed/remote/resilience.js";
import { startEmbedTestServer, type EmbedTestServer } from "./fixtures/embed/embed-test-server.js";
import { selectProvider } from "../src/embed/select.js";
import { openDatabase } from "../src/index/db/db.js";
import { IndexStore } from "../src/index/repos/store.js";
import { Indexer } from "../src/indexer/sync.js";
import { isolatedEnv, runCli, spawnCli } from "./helpers/cli.js";
import { startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { openTestIndex, tempDir, writeFiles } from "./helpers/workspace.js";

const FAST = { baseDelayMs: 5, maxDelayMs: 500, gateMs: 150 };
const KEY = "sk-test-9f8e7d6c5b4a39281706f5e4d3c2b1a0ZZtopSecret";

let builtin: StaticBertProvider;
let server: EmbedTestServer;

beforeAll(async () => {
  const model = await ensureBuiltinModel(
    path.join(os.tmpdir(), "cortexd-test-models", `builtin-v${BUILTIN_BUILDER_VERSION}`),
  );
  builtin = await createStaticBertProvider(model);
  server = await startEmbedTestServer(builtin);
}, 120_000);

afterAll(async () => {
  await server?.close();
  await builtin?.close();
});

beforeEach(() => {
  Object.assign(server, {
    requests: [],
    faults: [],
    down: null,
    failAfter: null,
    delayMs: 0,
    dims: null,
    shuffle: false,
    base64: "support",
  });
});

function openai(
  extra: Partial<ConstructorParameters<typeof OpenAICompatibleProvider>[0]> = {},
): OpenAICompatibleProvider {
  return new OpenAICompatibleProvider({
    baseUrl: server.url,
    model: "glove-test",
    timeoutMs: 2000,
    maxRetries: 3,
    resilience: FAST,
    ...extra,
  });
}

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

const para = (topic: string, i: number) =>
  `## ${topic} ${i}\n\n${Array.from({ length: 10 }, (_, j) => `The ${topic} notes line ${j} of part ${i} about the deploy and the build server and our pipeline.`).join(" ")}\n`;

function workspace(): string {
  const root = tempDir();
  writeFiles(root, {
    "MEMORY.md": "# Memory\n\n- The deploy runs on the build server.\n- Sam bakes bread on Sundays.\n",
    "memory/2026-11-01.md": [1, 2, 3, 4].map((i) => para("deploy", i)).join("\n"),
    "memory/2026-11-02.md": [1, 2, 3].map((i) => para("bread oven", i)).join("\n"),
  });
  return root;
}

describe("openai-compatible provider", () => {
  it("is built without a network call, learns the dimension on the first embed and matches the server's model", async () => {
    const p = openai();
    expect(server.requests).toHaveLength(0);
    expect(p.dims).toBe(0);
    const texts = ["the deploy failed on the build server", "", "sourdough bread recipe"];
    const out = await p.embedBatch(texts);
    const ref = await builtin.embedBatch(texts);
    expect(p.dims).toBe(100);
    expect(p.identity).toBe(`openai-compatible:${new URL(server.url).host}:glove-test:100`);
    expect(out[1]).toBeNull(); // empty text: never sent
    expect(server.requests[0]!.body.input).toEqual([texts[0], texts[2]]);
    expect(cos(out[0]!, ref[0]!)).toBeCloseTo(1, 5);
    expect(cos(out[2]!, ref[2]!)).toBeCloseTo(1, 5);
  });

  it("asks for base64 float32 and decodes it exactly; reads number arrays from servers that ignore it; drops it for servers that reject it", async () => {
    const texts = ["the deploy failed on the build server", "sourdough bread recipe", "who owns the payments api"];
    const p = openai();
    const b64 = await p.embedBatch(texts);
    expect(server.requests[0]!.body.encoding_format).toBe("base64");
    server.base64 = "ignore";
    const arrays = await p.embedBatch(texts);
    expect(server.requests[1]!.body.encoding_format).toBe("base64");
    for (let i = 0; i < texts.length; i++) expect(Array.from(b64[i]!)).toEqual(Array.from(arrays[i]!)); // bit-identical
    expect(cos(b64[0]!, (await builtin.embedBatch([texts[0]!]))[0]!)).toBeCloseTo(1, 6);

    server.base64 = "reject";
    server.requests.length = 0;
    const strict = openai();
    const out = await strict.embedBatch(texts);
    expect(server.requests.map((r) => r.body.encoding_format)).toEqual(["base64", undefined]); // once more without it
    for (let i = 0; i < texts.length; i++) expect(Array.from(out[i]!)).toEqual(Array.from(b64[i]!));
    await strict.embedBatch(["bread oven"]);
    expect(server.requests.map((r) => r.body.encoding_format)).toEqual(["base64", undefined, undefined]); // remembered
    expect(strict.health()).toMatchObject({ state: "ok", consecutiveFailures: 0 });

    // Malformed base64 (not whole float32s) is a bad response, not a crash.
    expect(decodeFloat32(Buffer.from(new Float32Array([1.5, -2, 0.25]).buffer).toString("base64"))).toEqual(
      new Float32Array([1.5, -2, 0.25]),
    );
    expect(decodeFloat32("AAAA")).toBeNull(); // 3 bytes
    expect(decodeFloat32("")).toBeNull();
  });

  it("batches by count and by estimated tokens, preserving order (responses sorted by index)", async () => {
    server.shuffle = true;
    const texts = Array.from(
      { length: 23 },
      (_, i) => `note ${i} about the ${i % 2 ? "deploy pipeline" : "bread oven"} ${"word ".repeat(i * 3)}`,
    );
    const p = openai({ batchSize: 5, batchTokens: 120 });
    const out = await p.embedBatch(texts);
    const ref = await builtin.embedBatch(texts);
    expect(server.requests.length).toBeGreaterThan(5);
    const sent = server.requests.flatMap((r) => r.body.input ?? []);
    expect(sent).toEqual(texts);
    for (const r of server.requests) expect(r.body.input!.length).toBeLessThanOrEqual(5);
    for (let i = 0; i < texts.length; i++) expect(cos(out[i]!, ref[i]!)).toBeCloseTo(1, 5);
    expect(planBatches(["a b c", "d e f", "g"], 10, 4)).toEqual([
      [0, 1],
      [1, 3],
    ]);
  });

  it("planBatches counts tokens only when needed, with the same batches as counting every text", () => {
    const reference = (texts: string[], maxCount: number, maxTokens: number) => {
      const out: [number, number][] = [];
      let start = 0;
      let tokens = 0;
      for (let i = 0; i < texts.length; i++) {
        const t = countTokens(texts[i]!);
        if (i > start && (i - start >= maxCount || tokens + t > maxTokens)) {
          out.push([start, i]);
          start = i;
          tokens = 0;
        }
        tokens += t;
      }
      if (start < texts.length) out.push([start, texts.length]);
      return out;
    };
    const text = fc
      .array(fc.constantFrom("a", "bread", "oven  ", " ", "\n", "日本", "deploy-pipeline", "𠀀", "x".repeat(40)), {
        maxLength: 30,
      })
      .map((p) => p.join(""));
    fc.assert(
      fc.property(
        fc.array(text, { maxLength: 40 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 300 }),
        (texts, maxCount, maxTokens) => {
          expect(planBatches(texts, maxCount, maxTokens)).toEqual(reference(texts, maxCount, maxTokens));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("keeps its connection alive across batches, and reconnects after the server dropped it", async () => {
    const p = openai();
    const before = server.connections;
    for (let i = 0; i < 5; i++) await p.embedBatch([`bread oven ${i}`, `deploy ${i}`]);
    expect(server.connections - before).toBe(1);
    server.faults = [{ status: "drop" }];
    expect((await p.embedBatch(["bread"]))[0]).not.toBeNull(); // retried on a new connection
    expect(server.connections - before).toBe(2);
    await p.close();
  });

  it("sends dimensions, input types and the bearer key", async () => {
    const p = openai({ apiKey: KEY, dimensions: 100, queryInputType: "query", documentInputType: "passage" });
    expect(p.dims).toBe(100);
    await p.embedBatch(["a document about bread"]);
    await p.embedQueries(["bread?"]);
    expect(server.requests.map((r) => r.body.input_type)).toEqual(["passage", "query"]);
    expect(server.requests[0]!.body.dimensions).toBe(100);
    expect(server.requests[0]!.authorization).toBe(`Bearer ${KEY}`);
    expect(server.requests[0]!.path).toBe("/v1/embeddings");
    const v1 = openai({ baseUrl: `${server.url}/v1/` });
    await v1.embedBatch(["x bread"]);
    expect(server.requests[2]!.path).toBe("/v1/embeddings");
  });

  it("retries 429 (honouring Retry-After), 500 and dropped connections", async () => {
    server.faults = [{ status: 429, retryAfter: "0.2" }, { status: 500 }, { status: "drop" }];
    const p = openai();
    const t0 = performance.now();
    const [v] = await p.embedBatch(["the deploy failed"]);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
    expect(v).not.toBeNull();
    expect(server.requests).toHaveLength(4);
    expect(p.health()).toMatchObject({ state: "ok", retries: 3 });
    // 400 is not retried
    server.faults = [{ status: 400 }];
    await expect(p.embedBatch(["x bread"])).rejects.toThrow(/HTTP 400/);
    expect(server.requests).toHaveLength(5);
  });

  it("times out slow responses", async () => {
    server.delayMs = 300;
    const p = openai({ timeoutMs: 80, maxRetries: 1 });
    const t0 = performance.now();
    await expect(p.embedBatch(["slow bread"])).rejects.toThrow(/timed out after 80 ms/);
    // Two attempts cut at 80 ms each (~170 ms), not two full 300 ms answers (≥ 600 ms); margin for a loaded machine.
    expect(performance.now() - t0).toBeLessThan(500);
    expect(server.requests).toHaveLength(2);
  });

  it("cold-start gate: after 3 consecutive hard failures no calls for a while, then recovers", async () => {
    server.down = { status: 503 };
    const p = openai({ maxRetries: 1 });
    for (let i = 0; i < 3; i++) await expect(p.embedBatch(["bread"])).rejects.toThrow(/HTTP 503/);
    expect(server.requests).toHaveLength(6);
    const gated = p.embedBatch(["bread"]);
    await expect(gated).rejects.toBeInstanceOf(GateClosedError);
    await expect(p.embedBatch(["bread"])).rejects.toThrow(/3 consecutive failures.*HTTP 503/);
    expect(server.requests).toHaveLength(6); // no call while gated
    expect(p.health()).toMatchObject({ state: "gated", consecutiveFailures: 3 });
    server.down = null;
    await new Promise((r) => setTimeout(r, 170));
    expect((await p.embedBatch(["bread"]))[0]).not.toBeNull();
    expect(p.health().state).toBe("ok");
  });

  it("a response with a different dimension is an error", async () => {
    const p = openai();
    await p.embedBatch(["bread"]);
    server.dims = 64;
    await expect(p.embedBatch(["oven"])).rejects.toBeInstanceOf(BadResponseError);
    await expect(p.embedBatch(["oven"])).rejects.toThrow(/returned 64-dimensional vectors, expected 100/);
    const fixed = openai({ dimensions: 32 });
    await expect(fixed.embedBatch(["oven"])).rejects.toThrow(/expected 32/);
  });
});

describe("ollama provider", () => {
  it("POSTs /api/embed {model, input} and reads {embeddings}", async () => {
    const p = new OllamaProvider({ baseUrl: server.url, model: "nomic-embed-text", resilience: FAST });
    const texts = ["the deploy failed", "bread oven"];
    const out = await p.embedBatch(texts);
    const ref = await builtin.embedBatch(texts);
    expect(server.requests[0]).toMatchObject({ path: "/api/embed", body: { model: "nomic-embed-text", input: texts } });
    expect(cos(out[0]!, ref[0]!)).toBeCloseTo(1, 5);
    expect(cos(out[1]!, ref[1]!)).toBeCloseTo(1, 5);
    expect(p.identity).toBe(`ollama:${new URL(server.url).host}:nomic-embed-text:100`);
  });
});

describe("selection, indexing and degradation", () => {
  const cfg = (o: Record<string, unknown>) =>
    EmbeddingSchema.parse({
      provider: "openai-compatible",
      baseUrl: server.url,
      model: "glove-test",
      timeoutMs: 500,
      maxRetries: 0,
      ...o,
    });

  it("a configured endpoint that is down is an error with the reason, never replaced; up it is ready", async () => {
    server.down = { status: 502 };
    const down = await selectProvider(cfg({}), { dataDir: tempDir(), remote: { resilience: FAST } });
    expect(down.provider).toBeNull();
    expect(down.status).toMatchObject({ state: "error", provider: "openai-compatible", source: "configured" });
    expect(down.status.reason).toMatch(/unavailable: .*HTTP 502/);
    server.down = null;
    const up = await selectProvider(cfg({}), { dataDir: tempDir(), remote: { resilience: FAST } });
    expect(up.status).toMatchObject({
      state: "ready",
      dims: 100,
      identity: `openai-compatible:${new URL(server.url).host}:glove-test:100`,
    });
    const missingKey = await selectProvider(cfg({ apiKeyEnv: "CORTEXD_TEST_MISSING_KEY" }), {
      dataDir: tempDir(),
      remote: { env: {} },
    });
    expect(missingKey.status.reason).toMatch(/CORTEXD_TEST_MISSING_KEY .*is not set/);
    const ollama = await selectProvider(
      EmbeddingSchema.parse({ provider: "ollama", baseUrl: server.url, model: "m" }),
      { dataDir: tempDir() },
    );
    expect(ollama.status).toMatchObject({ state: "ready", provider: "ollama", dims: 100 });
  });

  it("indexing continues keyword-only while the provider is down and backfills when it recovers", async () => {
    const root = workspace();
    const p = openai({ maxRetries: 1 });
    await p.probe();
    const idx = openTestIndex(root, p);
    server.requests.length = 0;
    server.down = { status: 500 };
    const first = await idx.indexer.sync();
    expect(first.vectorError).toMatch(/HTTP 500/);
    const c1 = idx.store.counts();
    expect(c1.chunks).toBeGreaterThan(3);
    expect(first.vectorsDeferred).toBe(c1.pending);
    expect(c1.pending).toBe(c1.chunks);
    expect(server.requests.length).toBeLessThanOrEqual(2); // one failed call (1 retry), then no more in this sync
    const kw = await idx.searcher.search({ query: "bread oven" });
    expect(kw.results.length).toBeGreaterThan(0);

    server.down = null;
    const second = await idx.indexer.sync();
    expect(second.vectorError).toBeUndefined();
    expect(second.embedded).toBe(c1.chunks);
    const c2 = idx.store.counts();
    expect(c2.pending).toBe(0);
    expect(c2.vectors + c2.noVector).toBe(c2.chunks);
    const hybrid = await idx.searcher.search({ query: "our CI pipeline broke" });
    expect(hybrid.mode).toBe("hybrid");
    idx.close();
  });

  it("a failure part-way through keeps what was embedded and defers the rest", async () => {
    const root = workspace();
    const p = openai({ maxRetries: 0, batchSize: 2 });
    await p.probe();
    server.requests.length = 0;
    const store = new IndexStore(openDatabase(path.join(tempDir(), "index.sqlite")), "test");
    const indexer = new Indexer({
      store,
      target: { root },
      provider: p,
      chunking: { maxTokens: 400, overlapTokens: 80 },
      embedBatchSize: 4,
    });
    const idx = { store, indexer, close: () => store.close() };
    server.failAfter = 2;
    const rep = await idx.indexer.sync();
    server.failAfter = null;
    const c = idx.store.counts();
    expect(rep.vectorError).toMatch(/HTTP 503/);
    expect(c.vectors).toBeGreaterThan(0);
    expect(c.pending).toBeGreaterThan(0);
    expect(rep.vectorsDeferred).toBe(c.pending);
    const again = await idx.indexer.sync();
    expect(again.embedded).toBe(c.pending);
    expect(idx.store.counts().pending).toBe(0);
    idx.close();
  });

  it("a dimension change on the endpoint marks the vectors stale and re-embeds through the cache", async () => {
    const root = workspace();
    const a = openai();
    await a.probe();
    const idx = openTestIndex(root, a);
    await idx.indexer.sync();
    const before = idx.store.counts();
    server.dims = 64;
    await expect(a.embedBatch(["bread"])).rejects.toThrow(/expected 100/);
    const b = openai();
    await b.probe();
    expect(b.identity).toMatch(/:64$/);
    idx.indexer.setProvider(b);
    const rep = await idx.indexer.sync();
    expect(rep.modelChanged).toEqual({ from: a.identity, to: b.identity });
    expect(rep.embedded).toBe(before.chunks);
    expect(idx.store.vectorDims).toBe(64);
    expect(idx.store.counts().pending).toBe(0);
    // back to 100 dims: the old identity's vectors come from the cache, no calls
    server.dims = null;
    idx.indexer.setProvider(a);
    server.requests.length = 0;
    const back = await idx.indexer.sync();
    expect(back.cacheHits).toBe(before.chunks);
    expect(back.embedded).toBe(0);
    expect(server.requests).toHaveLength(0);
    idx.close();
  });

  it("never logs or reports the API key", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const logger = pino({ level: "trace" }, sink);
    const env = { CORTEXD_TEST_EMBED_KEY: KEY };
    // the server echoes the Authorization header in its error body, as some do
    server.faults = [
      { status: 500, body: `{"error":"bad gateway for Bearer ${KEY}"}` },
      { status: 401, body: `{"error":"Incorrect API key provided: ${KEY}"}` },
    ];
    const sel = await selectProvider(cfg({ apiKeyEnv: "CORTEXD_TEST_EMBED_KEY", maxRetries: 1 }), {
      dataDir: tempDir(),
      logger,
      remote: { env, resilience: FAST },
    });
    expect(sel.status.state).toBe("error");
    expect(sel.status.reason).toMatch(/HTTP 401/);
    expect(server.requests.map((r) => r.authorization)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
    const p = createRemoteProvider(cfg({ apiKeyEnv: "CORTEXD_TEST_EMBED_KEY", maxRetries: 0 }), {
      env,
      logger,
      resilience: FAST,
    });
    server.down = { status: 503, body: KEY };
    const root = workspace();
    const idx = openTestIndex(root, p as EmbeddingProvider);
    await expect(p.embedBatch(["x"])).rejects.toThrow(/\*\*\*/);
    server.down = null;
    await p.probe();
    server.down = { status: 503, body: KEY };
    const rep = await idx.indexer.sync();
    idx.close();
    const all = lines.join("") + JSON.stringify(sel.status) + JSON.stringify(rep) + JSON.stringify(p);
    expect(lines.length).toBeGreaterThan(0);
    expect(rep.vectorError).toBeDefined();
    expect(all).not.toContain(KEY);
    expect(all).not.toContain(KEY.slice(8, 30));
  });
});

describe("daemon status: live endpoint health", () => {
  const running: TestDaemon[] = [];
  afterAll(async () => {
    for (const d of running) await d.stop();
  });

  it("shows the endpoint going down and coming back while a real daemon runs (cortex.status and cortexd status)", async () => {
    const root = workspace();
    const config = {
      workspaces: [{ path: root }],
      embedding: {
        provider: "openai-compatible",
        baseUrl: server.url,
        model: "glove-test",
        maxRetries: 0,
        timeoutMs: 2000,
      },
      daemon: { watch: "off" }, // syncs only when asked: the test decides when the endpoint is called
    };
    const d = await startDaemon({ config, env: { CORTEXD_EMBEDDING_PROVIDER: "openai-compatible" } });
    running.push(d);
    const status = () => d.call("cortex.status", {});
    const cli = (...args: string[]) => runCli(["status", ...args], d.env);
    await waitUntil(async () => (await status()).embedding.vectors === "complete", 20_000);
    const up = (await status()).embedding;
    expect(up).toMatchObject({
      state: "ready",
      dims: 100,
      pendingVectors: 0,
      vectors: "complete",
      endpoint: { state: "ok", consecutiveFailures: 0, lastError: null, lastErrorAt: null },
    });
    expect(Date.parse(up.endpoint!.lastSuccessAt!)).toBeGreaterThan(Date.now() - 60_000);
    const json = JSON.parse(cli("--json").stdout) as { running: boolean; embedding: typeof up };
    expect(json.running).toBe(true);
    expect(json.embedding.endpoint?.state).toBe("ok");

    // The endpoint goes down: new chunks are indexed keyword-only; status says so.
    server.down = { status: 503 };
    writeFiles(root, { "memory/2026-11-03.md": [1, 2].map((i) => para("guitar lesson", i)).join("\n") });
    const failed = await d.call("index.sync", {});
    expect(failed.reports[0]!.vectorError).toMatch(/HTTP 503/);
    const down = (await status()).embedding;
    expect(down).toMatchObject({
      state: "ready",
      vectors: "deferred",
      endpoint: { state: "degraded", consecutiveFailures: 1 },
    });
    expect(down.pendingVectors).toBeGreaterThan(0);
    expect(down.endpoint!.lastError).toMatch(/HTTP 503/);
    expect(Date.parse(down.endpoint!.lastErrorAt!)).toBeGreaterThanOrEqual(Date.parse(up.endpoint!.lastSuccessAt!));
    const text = cli();
    expect(text.code).toBe(0); // one failure is not "unhealthy" yet
    expect(text.stdout).toMatch(
      /endpoint: {2}FAILING \(1 failure in a row\), last success \d+s ago, last error \d+s ago: .*HTTP 503/,
    );
    expect(text.stdout).toContain(
      `vectors:   ${down.pendingVectors} chunk${down.pendingVectors === 1 ? "" : "s"} keyword-only until the embedding provider works again`,
    );

    // Back: the next sync backfills.
    server.down = null;
    const back = await d.call("index.sync", {});
    expect(back.reports[0]!.embedded).toBe(down.pendingVectors);
    const ok = (await status()).embedding;
    expect(ok).toMatchObject({
      vectors: "complete",
      pendingVectors: 0,
      endpoint: { state: "ok", consecutiveFailures: 0 },
    });
    expect(Date.parse(ok.endpoint!.lastSuccessAt!)).toBeGreaterThanOrEqual(Date.parse(down.endpoint!.lastErrorAt!));
    expect(ok.endpoint!.lastError).toMatch(/HTTP 503/); // still reported, with its time

    // Down for good: after 3 failures in a row no more calls; the daemon reports itself degraded.
    server.down = { status: 503 };
    writeFiles(root, { "memory/2026-11-04.md": para("flight hotel", 1) });
    for (let i = 0; i < 3; i++) await d.call("index.sync", {});
    const gated = await status();
    expect(gated.healthy).toBe(false);
    expect(gated.embedding).toMatchObject({
      vectors: "deferred",
      endpoint: { state: "gated", consecutiveFailures: 3 },
    });
    expect(Date.parse(gated.embedding.endpoint!.gatedUntil!)).toBeGreaterThan(Date.now());
    const text2 = cli();
    expect(text2.code).toBe(1);
    expect(text2.stdout).toMatch(/endpoint: {2}DOWN \(3 failures in a row; next call in \d+s\)/);
    server.down = null;
  }, 60_000);
});

describe("cortexd model test", () => {
  function run(
    args: string[],
    env: Record<string, string>,
  ): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawnCli(args, env);
      let stdout = "";
      let stderr = "";
      child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
  }

  it("prints latency, dimension and similarity for the configured endpoint (and fails clearly when it is down)", async () => {
    const home = tempDir();
    const ws = path.join(home, "ws");
    writeFiles(ws, { "MEMORY.md": "# Memory\n" });
    const config = path.join(home, "config.json");
    writeFileSync(
      config,
      JSON.stringify({
        workspaces: [{ path: ws }],
        embedding: {
          provider: "openai-compatible",
          baseUrl: server.url,
          model: "glove-test",
          apiKeyEnv: "CORTEXD_TEST_EMBED_KEY",
          maxRetries: 0,
        },
      }),
    );
    const env = isolatedEnv(home, { CORTEXD_TEST_EMBED_KEY: KEY });
    const r = await run(["--config", config, "model", "test", "--json"], env);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ provider: "openai-compatible", model: "glove-test", dims: 100 });
    expect(out.similarity).toBeGreaterThan(0.3);
    expect(out.latencyMs).toBeGreaterThan(0);
    const text = await run(["--config", config, "model", "test"], env);
    expect(text.stdout).toMatch(/dimension: 100/);
    server.down = { status: 503 };
    const down = await run(["--config", config, "model", "test"], env);
    expect(down.code).not.toBe(0);
    expect(down.stderr).toMatch(/error: .*HTTP 503/);
    expect(r.stdout + r.stderr + text.stdout + text.stderr + down.stdout + down.stderr).not.toContain(KEY);
  });
});

// Types only: a remote provider is an EmbeddingProvider.
const _check: (p: RemoteEmbeddingProvider) => EmbeddingProvider = (p) => p;
void _check;
