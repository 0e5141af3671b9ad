import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ggufValue, readGgufInfo, readGgufTensor } from "../src/embed/gguf/reader.js";
import {
  STATIC_BERT_CLS_ID,
  STATIC_BERT_SEP_ID,
  STATIC_BERT_SPECIAL_TOKENS,
  STATIC_BERT_UNK_ID,
  WORD_PREFIX,
  writeStaticBertGguf,
} from "../src/embed/gguf/static-bert.js";
import { writeGguf } from "../src/embed/gguf/writer.js";
import { createLocalProvider, ModelLoadError } from "../src/embed/local-provider.js";
import type { EmbeddingProvider } from "../src/embed/provider.js";
import { embedStaticBertReference } from "./fixtures/embed/static-bert-reference.js";
import {
  ensureTinyTestModel,
  TINY_MODEL_DIMS,
  TINY_MODEL_FILE,
  TINY_MODEL_TOPICS,
} from "./fixtures/embed/tiny-model.js";

let dir: string;
let tinyPath: string;
let provider: EmbeddingProvider;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cortexd-local-"));
  tinyPath = await ensureTinyTestModel(path.join(dir, "models"));
  provider = await createLocalProvider({ model: tinyPath });
});
afterAll(async () => {
  await provider?.close();
  await rm(dir, { recursive: true, force: true });
});

const cos = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: Float32Array): number => Math.sqrt(a.reduce((s, x) => s + x * x, 0));
const sha256 = async (p: string): Promise<string> =>
  createHash("sha256")
    .update(await readFile(p))
    .digest("hex");

async function embed1(p: EmbeddingProvider, text: string): Promise<Float32Array | null> {
  const [v] = await p.embedBatch([text]);
  return v ?? null;
}

/** Token table, eps and γ of a static-bert file, plus a WordPiece-like tokenizer for simple ASCII text. */
async function loadStaticBert(file: string) {
  const info = await readGgufInfo(file);
  const table = await readGgufTensor(file, info, "token_embd.weight");
  const gamma = (await readGgufTensor(file, info, "token_embd_norm.weight"))[0]!;
  const eps = ggufValue(info, "bert.attention.layer_norm_epsilon") as number;
  const dims = ggufValue(info, "bert.embedding_length") as number;
  const tokens = ggufValue(info, "tokenizer.ggml.tokens") as string[];
  const ids = new Map(tokens.map((t, i) => [t, i]));
  const tokenize = (text: string): number[] =>
    (text.toLowerCase().match(/[a-z0-9]+|[^\sa-z0-9]/g) ?? []).map(
      (w) => ids.get(WORD_PREFIX + w) ?? STATIC_BERT_UNK_ID,
    );
  const reference = (text: string, maxTokens = Infinity) =>
    embedStaticBertReference(
      [STATIC_BERT_CLS_ID, ...tokenize(text).slice(0, maxTokens), STATIC_BERT_SEP_ID],
      table,
      dims,
      eps,
      gamma,
    );
  return { dims, reference, tokenize };
}

describe("tiny test model", () => {
  it("is cached once and safe under concurrent ensure calls", async () => {
    const cache = path.join(dir, "race");
    const paths = await Promise.all([1, 2, 3, 4].map(() => ensureTinyTestModel(cache)));
    expect(new Set(paths)).toEqual(new Set([path.join(cache, TINY_MODEL_FILE)]));
    expect(await readdir(cache)).toEqual([TINY_MODEL_FILE]);
    expect(await sha256(paths[0]!)).toBe(await sha256(tinyPath)); // deterministic content
    const before = (await stat(paths[0]!)).mtimeMs;
    await ensureTinyTestModel(cache);
    expect((await stat(paths[0]!)).mtimeMs).toBe(before);
  });
});

describe("local provider on the tiny model", () => {
  it("loads with the model's dims and a content-addressed identity", async () => {
    expect(provider.dims).toBe(TINY_MODEL_DIMS);
    expect(provider.modelName).toBe(TINY_MODEL_FILE);
    expect(provider.identity).toBe(`local:${TINY_MODEL_FILE}:${(await sha256(tinyPath)).slice(0, 16)}`);
  });

  it("ranks same-topic sentences above unrelated ones", async () => {
    const [q, related, unrelated] = (await provider.embedBatch([
      "the deploy failed on the build server",
      "our CI pipeline broke",
      "I baked bread",
    ])) as Float32Array[];
    for (const v of [q!, related!, unrelated!]) expect(Math.abs(norm(v) - 1)).toBeLessThan(1e-5);
    expect(cos(q!, related!)).toBeGreaterThan(cos(q!, unrelated!) + 0.3);
    const flight = await embed1(provider, "we booked a flight to tokyo");
    const hotel = await embed1(provider, "the hotel near the airport");
    expect(cos(flight!, hotel!)).toBeGreaterThan(cos(flight!, q!));
  });

  it("returns null for empty and all-unknown inputs and counts them", async () => {
    const before = provider.stats();
    const out = await provider.embedBatch(["", "   \n\t", "zxqv blorptastic qqq", "?!.", "deploy"]);
    expect(out.slice(0, 4)).toEqual([null, null, null, null]);
    expect(out[4]).toBeInstanceOf(Float32Array);
    const after = provider.stats();
    expect(after.empty - before.empty).toBe(4);
    expect(after.embedded - before.embedded).toBe(1);
  });

  it("matches the plain-TS static-bert reference within 1e-4 (F32)", async () => {
    const ref = await loadStaticBert(tinyPath);
    const sentences = [
      "the deploy failed on the build server",
      "Our CI pipeline broke, again!",
      "I baked bread in the oven with flour and yeast",
      "mom and dad went to the concert; unknownword here",
    ];
    const got = await provider.embedBatch(sentences);
    sentences.forEach((s, i) => {
      const expected = ref.reference(s);
      const v = got[i]!;
      const maxDiff = Math.max(...Array.from(v, (x, j) => Math.abs(x - expected[j]!)));
      expect(maxDiff, s).toBeLessThan(1e-4);
    });
  });

  it("truncates a 20,000-word input to the context and embeds its head", async () => {
    const software = TINY_MODEL_TOPICS.software!;
    const cooking = TINY_MODEL_TOPICS.cooking!;
    // First 3,000 words are software, the rest cooking: only the head fits in 2048 tokens.
    const words = Array.from({ length: 20_000 }, (_, i) =>
      i < 3000 ? software[(i * 7) % software.length]! : cooking[(i * 5) % cooking.length]!,
    );
    const before = provider.stats();
    const t0 = performance.now();
    const v = await embed1(provider, words.join(" "));
    const ms = performance.now() - t0;
    expect(v).not.toBeNull();
    expect(provider.stats().truncated - before.truncated).toBe(1);
    expect(ms).toBeLessThan(10_000);
    const ref = await loadStaticBert(tinyPath);
    const expected = ref.reference(words.join(" "), 2048 - 3);
    expect(Math.max(...Array.from(v!, (x, j) => Math.abs(x - expected[j]!)))).toBeLessThan(1e-4);
    const sw = await embed1(provider, "deploy build server pipeline");
    const ck = await embed1(provider, "bread oven flour dough");
    expect(cos(v!, sw!)).toBeGreaterThan(cos(v!, ck!));
    // The provider is still usable afterwards.
    expect(await embed1(provider, "release")).not.toBeNull();
  });

  it("embeds a few hundred sentences quickly with one thread", async () => {
    const texts = Array.from(
      { length: 300 },
      (_, i) => `the deploy ${i % 2 ? "failed" : "broke"} on our build server after the release`,
    );
    const t0 = performance.now();
    const out = await provider.embedBatch(texts);
    const perSentence = (performance.now() - t0) / texts.length;
    expect(out.every((v) => v !== null)).toBe(true);
    expect(perSentence).toBeLessThan(20);
  });
});

describe("local provider with an F16 model and a short context", () => {
  it("caps contextSize at the model's context length and matches the reference", async () => {
    const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", ",", "."];
    const dims = 20;
    const vectors = new Float32Array(words.length * dims).map((_, i) => Math.sin(i * 0.91) * 3 + Math.cos(i * 0.13));
    const file = path.join(dir, "f16-short.gguf");
    await writeStaticBertGguf(file, { name: "f16-short", words, dims, vectors, contextLength: 64, tensorType: "f16" });
    // contextSize far above the model's 64 positions would abort llama.cpp on a long input (trap 3).
    const p = await createLocalProvider({ model: file, contextSize: 100_000, threads: 1 });
    try {
      expect(p.dims).toBe(dims);
      const ref = await loadStaticBert(file);
      for (const s of ["alpha beta gamma", "delta, epsilon. zeta eta theta alpha", "theta theta unknown alpha"]) {
        const v = await embed1(p, s);
        const e = ref.reference(s);
        expect(Math.max(...Array.from(v!, (x, j) => Math.abs(x - e[j]!))), s).toBeLessThan(1e-4);
      }
      const long = Array.from({ length: 5000 }, (_, i) => words[i % 8]).join(" ");
      const v = await embed1(p, long);
      const e = ref.reference(long, 64 - 3);
      expect(Math.max(...Array.from(v!, (x, j) => Math.abs(x - e[j]!)))).toBeLessThan(1e-4);
      expect(p.stats().truncated).toBe(1);
    } finally {
      await p.close();
    }
    await p.close(); // idempotent
    await expect(p.embedBatch(["alpha"])).rejects.toThrow(/closed/);
  });
});

describe("static-bert dims", () => {
  it("loads and matches the reference for dims 16, 17, 33, 64 and 100", async () => {
    const words = ["red", "green", "blue", "cyan"];
    for (const dims of [16, 17, 33, 64, 100]) {
      const vectors = new Float32Array(words.length * dims).map((_, i) => Math.sin(i * 1.3 + dims));
      const file = path.join(dir, `dims-${dims}.gguf`);
      await writeStaticBertGguf(file, { name: `d${dims}`, words, dims, vectors, contextLength: 128 });
      const p = await createLocalProvider({ model: file });
      try {
        expect(p.dims).toBe(dims);
        const v = await embed1(p, "red green blue");
        const e = (await loadStaticBert(file)).reference("red green blue");
        expect(Math.max(...Array.from(v!, (x, j) => Math.abs(x - e[j]!))), `dims ${dims}`).toBeLessThan(1e-4);
      } finally {
        await p.close();
      }
    }
  });
});

describe("local provider load errors", () => {
  it("reports a missing file with ModelLoadError", async () => {
    const missing = path.join(dir, "does-not-exist.gguf");
    const err = await createLocalProvider({ model: missing }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelLoadError);
    expect((err as Error).message).toContain(missing);
    expect((err as Error).message).toMatch(/not found/);
  });

  it("rejects a garbage file without touching it", async () => {
    const garbage = path.join(dir, "garbage.gguf");
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131 + 7) % 256));
    await writeFile(garbage, bytes);
    const before = await stat(garbage);
    const err = await createLocalProvider({ model: garbage }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelLoadError);
    expect((err as Error).message).toMatch(/not a valid GGUF/);
    const after = await stat(garbage);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(await readFile(garbage)).toEqual(bytes);
  });

  it("rejects a truncated GGUF and a directory", async () => {
    const trunc = path.join(dir, "trunc.gguf");
    const full = await readFile(tinyPath);
    await writeFile(trunc, full.subarray(0, Math.floor(full.length / 2)));
    await expect(createLocalProvider({ model: trunc })).rejects.toThrow(ModelLoadError);
    expect((await stat(trunc)).size).toBe(Math.floor(full.length / 2));
    const sub = path.join(dir, "a-dir.gguf");
    await mkdir(sub);
    await expect(createLocalProvider({ model: sub })).rejects.toThrow(/not a regular file/);
  });

  it("rejects a GGUF whose metadata would abort llama.cpp (no unknown_token_id)", async () => {
    const info = await readGgufInfo(tinyPath);
    const tensors = await Promise.all(
      info.tensors.map(async (t) => ({
        name: t.name,
        dims: t.dims,
        type: (t.ggmlType === 1 ? "f16" : "f32") as "f16" | "f32",
        data: await readGgufTensor(tinyPath, info, t.name),
      })),
    );
    const bad = path.join(dir, "no-unk.gguf");
    await writeGguf(bad, { kv: info.kv.filter((e) => e.key !== "tokenizer.ggml.unknown_token_id"), tensors });
    await expect(createLocalProvider({ model: bad })).rejects.toThrow(/unknown_token_id/);
  });

  it("fails fast on an hf: URI when downloads are off", async () => {
    const t0 = performance.now();
    const err = await createLocalProvider({
      model: "hf:nobody/no-such-model/model.gguf",
      modelsDir: path.join(dir, "hf"),
    }).catch((e: unknown) => e);
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(err).toBeInstanceOf(ModelLoadError);
    expect((err as Error).message).toMatch(/download/i);
  });

  it("special tokens are the documented ones", () => {
    expect(STATIC_BERT_SPECIAL_TOKENS).toEqual(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]);
    expect([STATIC_BERT_UNK_ID, STATIC_BERT_CLS_ID, STATIC_BERT_SEP_ID]).toEqual([1, 2, 3]);
  });
});
