import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { EmbeddingSchema } from "../../src/config/schema.js";
import { createRemoteProvider } from "../../src/embed/remote/index.js";
import { ensureBuiltinModel } from "../../src/embed/builtin/ensure.js";
import { createStaticBertProvider } from "../../src/embed/builtin/fast-provider.js";
import { createLocalProvider } from "../../src/embed/local-provider.js";
import type { EmbeddingProvider } from "../../src/embed/provider.js";
import { openDatabase } from "../../src/index/db/db.js";
import { IndexStore } from "../../src/index/repos/store.js";
import { Indexer } from "../../src/indexer/sync.js";
import { generateWorkspace, rng } from "./generate.js";
import { benchPath, fmtMs, freshDir, maxRssMb, median, percentile, type Args } from "./util.js";

const QUERIES = [
  "why did the deploy fail on the build server",
  "what did we decide about the database migration",
  "recipe for sourdough bread",
  "when is the flight to the conference",
  "who owns the payments api",
  "doctor appointment next week",
  "guitar lesson practice schedule",
  "budget for the family holiday",
];

async function measure(name: string, p: EmbeddingProvider, chunks: string[]): Promise<void> {
  for (const q of QUERIES) await p.embedBatch([q]); // warm-up
  const lat: number[] = [];
  for (let i = 0; i < 400; i++) {
    const t = performance.now();
    await p.embedBatch([QUERIES[i % QUERIES.length]!]);
    lat.push(performance.now() - t);
  }
  const t0 = performance.now();
  for (let i = 0; i < chunks.length; i += 64) await p.embedBatch(chunks.slice(i, i + 64));
  const ms = performance.now() - t0;
  console.log(`\n[${name}]`);
  console.log(
    `  query embedding:  p50 ${fmtMs(median(lat))}, p95 ${fmtMs(percentile(lat, 95))} (${Math.round(1000 / median(lat))} embeddings/s)`,
  );
  console.log(
    `  chunk embedding:  ${chunks.length} chunks (~${Math.round(chunks.reduce((n, c) => n + c.length, 0) / chunks.length)} chars) in ${fmtMs(ms)} = ${Math.round(chunks.length / (ms / 1000))} chunks/s`,
  );
}

/** The local embedding server in a worker thread, with its per-request server time in shared memory. */
async function startServerThread(
  base64: string,
): Promise<{ url: string; serverMs: () => number; settle: () => void; close: () => Promise<void> }> {
  const shared = new SharedArrayBuffer(16);
  const counts = new Int32Array(shared, 0, 2); // received, answered
  const ms = new Float64Array(shared, 8, 1);
  const worker = new Worker(new URL("./embed-server-worker.js", import.meta.url), {
    workerData: { modelsDir: benchPath("models"), shared, base64 },
  });
  const url = await new Promise<string>((resolve, reject) => {
    worker.once("message", (m: { url: string }) => resolve(m.url));
    worker.once("error", reject);
  });
  return {
    url,
    serverMs: () => ms[0]!,
    // The server publishes a request's time just after writing its response: wait until every
    // request received so far is published.
    settle: () => {
      for (let done = Atomics.load(counts, 1); done < Atomics.load(counts, 0); done = Atomics.load(counts, 1))
        Atomics.wait(counts, 1, done, 50);
    },
    close: async () => {
      worker.postMessage("close");
      await new Promise((r) => worker.once("exit", r));
    },
  };
}

/**
 * `npm run bench -- embed --provider openai-compatible|ollama [--url URL] [--model M] [--api-key-env VAR] [--batches N] [--server-base64 support|ignore|reject]`:
 * a remote provider's throughput and the client's own overhead per 100-text batch. Without --url a
 * local server (the built-in model) runs in a worker thread, and the overhead is the client's wall
 * time minus the server's time for the request (from the request body received to the response
 * ready to write): what is left is the client's work (request JSON, HTTP, response parse,
 * base64 decode, normalisation) plus the loopback transfer and the server's HTTP framing. The
 * client's event-loop busy time (performance.eventLoopUtilization) is its own work alone.
 */
async function benchRemote(args: Args): Promise<void> {
  const kind = String(args.flags.provider);
  if (kind !== "openai-compatible" && kind !== "ollama")
    throw new Error(`--provider must be openai-compatible or ollama, not ${kind}`);
  const batches = Number(args.flags.batches ?? 200);
  const r = rng(11);
  const words =
    "the deploy build server pipeline release bread oven flight hotel doctor budget invoice guitar family and we then after it was".split(
      " ",
    );
  const texts = Array.from({ length: 100 * batches }, () =>
    Array.from({ length: 60 }, () => words[Math.floor(r() * words.length)]).join(" "),
  );
  let server: Awaited<ReturnType<typeof startServerThread>> | null = null;
  let url = typeof args.flags.url === "string" ? args.flags.url : undefined;
  if (!url) {
    const base64 = String(args.flags["server-base64"] ?? "support");
    if (!["support", "ignore", "reject"].includes(base64))
      throw new Error(`--server-base64 must be support, ignore or reject, not ${base64}`);
    server = await startServerThread(base64);
    url = server.url;
    console.log(`local ${kind} server (built-in model, own thread, base64 ${base64}) at ${url}`);
  }
  const cfg = EmbeddingSchema.parse({
    provider: kind,
    baseUrl: url,
    model: typeof args.flags.model === "string" ? args.flags.model : "glove-test",
    ...(typeof args.flags["api-key-env"] === "string" ? { apiKeyEnv: args.flags["api-key-env"] } : {}),
    batchSize: 100,
    batchTokens: 1_000_000,
  });
  const p = createRemoteProvider(cfg);
  await p.probe();
  for (let i = 0; i < 20; i++) await p.embedBatch(texts.slice((i % batches) * 100, (i % batches) * 100 + 100)); // warm-up (keep-alive, JIT)
  const per: number[] = [];
  const overhead: number[] = [];
  const busy: number[] = [];
  const t0 = performance.now();
  for (let b = 0; b < batches; b++) {
    server?.settle();
    const s0 = server?.serverMs() ?? 0;
    const t = performance.now();
    const elu = performance.eventLoopUtilization();
    await p.embedBatch(texts.slice(b * 100, b * 100 + 100));
    const ms = performance.now() - t;
    busy.push(performance.eventLoopUtilization(elu).active);
    per.push(ms);
    if (server) {
      server.settle();
      overhead.push(ms - (server.serverMs() - s0));
    }
  }
  const total = performance.now() - t0;
  console.log(`\n[${kind} provider, ${p.identity}]`);
  console.log(
    `  ${texts.length} texts (~${Math.round(texts.reduce((n, c) => n + c.length, 0) / texts.length)} chars) in ${batches} batches of 100: ${fmtMs(total)} = ${Math.round(texts.length / (total / 1000))} embeddings/s`,
  );
  console.log(`  per 100-text batch: p50 ${fmtMs(median(per))}, p95 ${fmtMs(percentile(per, 95))}`);
  if (server) {
    console.log(
      `  client overhead per 100-text batch (wall − server time; loopback and HTTP framing included): p50 ${fmtMs2(median(overhead))}, p95 ${fmtMs2(percentile(overhead, 95))}`,
    );
  } else {
    console.log("  (client overhead needs the local server: run without --url)");
  }
  console.log(
    `  client event-loop busy time per 100-text batch (the client's own work): p50 ${fmtMs2(median(busy))}, p95 ${fmtMs2(percentile(busy, 95))}`,
  );
  await p.close();
  await server?.close();
}

const fmtMs2 = (ms: number) => `${ms.toFixed(2)} ms`;

/** `npm run bench -- embed [--files N]`: the built-in model through each path, and a cold index with vectors. */
export async function benchEmbed(args: Args): Promise<void> {
  if (args.flags.provider) return benchRemote(args);
  const files = Number(args.flags.files ?? 2000);
  const t0 = performance.now();
  const model = await ensureBuiltinModel(benchPath("models"));
  console.log(`built-in model ready in ${fmtMs(performance.now() - t0)}: ${model}`);
  const r = rng(7);
  const words =
    "the deploy build server pipeline release bread oven flight hotel doctor budget invoice guitar family and we then after it was".split(
      " ",
    );
  const chunks = Array.from({ length: 2000 }, () =>
    Array.from({ length: 250 }, () => words[Math.floor(r() * words.length)]).join(" "),
  );

  const fast = await createStaticBertProvider(model);
  await measure("built-in model, TypeScript fast path", fast, chunks);
  const llama = await createLocalProvider({ model, threads: 1 });
  await measure("built-in model, node-llama-cpp (threads 1)", llama, chunks.slice(0, 500));
  await llama.close();

  const root = benchPath(`ws-${files}-42`);
  const gen = generateWorkspace(root, files, 42);
  const dir = freshDir(benchPath("db-embed"));
  const store = new IndexStore(openDatabase(join(dir, "index.sqlite")), "bench");
  const indexer = new Indexer({
    store,
    target: { root },
    provider: fast,
    chunking: { maxTokens: 400, overlapTokens: 80 },
  });
  const t1 = performance.now();
  const rep = await indexer.sync();
  const coldMs = performance.now() - t1;
  console.log(`\n[cold index with vectors, built-in model] ${gen.files} files, ${(gen.bytes / 1e6).toFixed(1)} MB`);
  console.log(
    `  ${fmtMs(coldMs)} (${Math.round(gen.files / (coldMs / 1000))} files/s), ${rep.chunksWritten} chunks, ${rep.embedded} embedded`,
  );
  store.close();
  await fast.close();
  console.log(`\nmax RSS: ${maxRssMb()} MB   (node ${process.version}, ${process.platform}-${process.arch})`);
}
