/**
 * The TypeScript static-bert provider: tokenizer rules, family checks (refuses anything
 * that is not provably "mean of layer-normed embeddings"), provider behaviour.
 * Uses the built-in model cached in os.tmpdir()/cortexd-test-models/builtin-v<builder version>.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_BUILDER_VERSION } from "../src/embed/builtin/build.js";
import { ensureBuiltinModel } from "../src/embed/builtin/ensure.js";
import {
  createStaticBertProvider,
  embedTokenIds,
  type StaticBertProvider,
} from "../src/embed/builtin/fast-provider.js";
import { NotStaticBertError, loadStaticBertModel } from "../src/embed/builtin/static-bert-load.js";
import { WordPiecePreTokenizer } from "../src/embed/builtin/wordpiece.js";
import { ggufValue, readGgufInfo, readGgufTensor, type GgufKV } from "../src/embed/gguf/reader.js";
import { kv, writeGguf, type GgufTensor } from "../src/embed/gguf/writer.js";
import { createLocalProvider } from "../src/embed/local-provider.js";
import { ensureTinyTestModel } from "./fixtures/embed/tiny-model.js";

let dir: string;
let modelPath: string;
let provider: StaticBertProvider;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cortexd-fast-"));
  modelPath = await ensureBuiltinModel(
    path.join(os.tmpdir(), "cortexd-test-models", `builtin-v${BUILTIN_BUILDER_VERSION}`),
  );
  provider = await createStaticBertProvider(modelPath);
}, 120_000);

afterAll(async () => {
  await provider?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("WordPiecePreTokenizer (llama.cpp's BERT pre-tokenizer)", () => {
  const pre = new WordPiecePreTokenizer({ lowercase: true, stripAccents: true });
  const cases: [string, string[]][] = [
    ["Hello World", ["hello", "world"]],
    ["Héllo, Wörld!", ["hello", ",", "world", "!"]],
    ["e\u0301tude", ["etude"]], // combining mark dropped
    ["don't co-op", ["don", "'", "t", "co", "-", "op"]],
    ["$5 + 3 = 8", ["$", "5", "+", "3", "=", "8"]],
    ["5€ ©2024", ["5€", "©2024"]], // symbols ≥ U+007F stay inside words
    ["東京abc北", ["東", "京", "abc", "北"]],
    ["한국어", ["\u1112\u1100\u110b"]], // not a "Chinese char"; like llama.cpp, each syllable → first jamo of its NFD
    ["a\u00a0b\u3000c\u2003d", ["a", "b", "c", "d"]],
    ["a\ufeffb a\u200bb", ["ab", "ab"]], // BOM and ZWSP are format chars: dropped, not spaces
    ["ǅemal İzmir STRASSE ß", ["ǆemal", "izmir", "strasse", "ß"]],
    ["x\u0000y\u0007z", ["xyz"]],
    ["", []],
    ["  \n\t ", []],
    ["🦊🐶 fox", ["🦊🐶", "fox"]],
    ["under_score", ["under", "_", "score"]],
  ];
  for (const [input, words] of cases) {
    it(JSON.stringify(input), () => expect(pre.words(input)).toEqual(words));
  }

  it("keeps case and accents when the model says so", () => {
    const raw = new WordPiecePreTokenizer({ lowercase: false, stripAccents: false });
    expect(raw.words("Héllo, Wörld")).toEqual(["Héllo", ",", "Wörld"]);
  });
});

describe("createStaticBertProvider", () => {
  it("embeds in order, counts, and reports null for texts without known words", async () => {
    const before = provider.stats();
    const out = await provider.embedBatch(["the build server", "", "zzqx", "our pipeline", "42"]);
    expect(out.map((v) => (v ? "vec" : null))).toEqual(["vec", null, null, "vec", null]);
    expect(out[0]).toHaveLength(100);
    const after = provider.stats();
    expect(after.embedded - before.embedded).toBe(2);
    expect(after.empty - before.empty).toBe(3);
    const [again] = await provider.embedBatch(["the build server"]);
    expect(again).toEqual(out[0]);
  });

  it("computes token rows on first use, growing its pool, and gives the same vectors whatever came before", async () => {
    const text = "the quarterly budget review moved to tuesday";
    const model = await loadStaticBertModel(modelPath);
    const embed = (t: string) => embedTokenIds(model, model.tokenizer.tokenize(t));
    const first = embed(text);
    expect(model.rows.computed).toBeLessThan(20); // only the tokens used so far, not the 50k vocabulary
    // Thousands of other words from the model's own vocabulary force the row pool to grow.
    const vocab = (ggufValue(model.info, "tokenizer.ggml.tokens") as string[])
      .filter((t) => t.startsWith("\u2581"))
      .map((t) => t.slice(1));
    for (let i = 0; i < 50; i++) embed(vocab.slice(2000 + i * 100, 2100 + i * 100).join(" "));
    expect(model.rows.computed).toBeGreaterThan(4000);
    expect(embed(text)).toEqual(first);
    expect(first).toEqual((await provider.embedBatch([text]))[0]);
  });

  it("sums the token rows one by one in order: the mean and norm of a plain loop, bit for bit, for any count", async () => {
    const model = await loadStaticBertModel(modelPath);
    const plain = (ids: number[]): Float32Array | null => {
      const all = [model.clsId, ...ids, model.sepId];
      const sum = new Float64Array(model.dims);
      for (const id of all) {
        const off = model.rows.offset(id);
        for (let i = 0; i < model.dims; i++) sum[i]! += model.rows.table[off + i]!;
      }
      let sq = 0;
      for (let i = 0; i < model.dims; i++) {
        sum[i] = sum[i]! / all.length;
        sq += sum[i]! * sum[i]!;
      }
      const norm = Math.sqrt(sq);
      return norm > 1e-12 ? Float32Array.from(sum, (x) => x / norm) : null;
    };
    const ids = model.tokenizer.tokenize(
      "the quarterly budget review moved to tuesday with the bank and the jazz band",
    );
    for (let n = 0; n <= ids.length; n++) expect(embedTokenIds(model, ids.slice(0, n))).toEqual(plain(ids.slice(0, n)));
  });

  it("has the local provider's identity format", () => {
    expect(provider.identity).toMatch(/^local:cortexd-glove-100d-sif\.gguf:[0-9a-f]{16}$/);
    expect(provider.modelName).toBe("cortexd-glove-100d-sif.gguf");
    expect(provider.dims).toBe(100);
  });

  it("truncates at contextSize − 3 tokens, capped by the model's context length", async () => {
    const small = await createStaticBertProvider(modelPath, { contextSize: 16 });
    const { ids, truncated } = small.tokenize(
      "one two three four five six seven eight nine ten eleven twelve thirteen fourteen",
    );
    expect(ids).toHaveLength(13);
    expect(truncated).toBe(true);
    const [cut] = await small.embedBatch(["cat ".repeat(13) + "dog ".repeat(20)]);
    const [cats] = await small.embedBatch(["cat"]);
    expect(Array.from(cut!).map((x) => x.toFixed(5))).toEqual(Array.from(cats!).map((x) => x.toFixed(5)));
    expect(small.stats().truncated).toBe(1);
    await small.close();
    const huge = await createStaticBertProvider(modelPath, { contextSize: 1_000_000 });
    expect(huge.tokenize("cat ".repeat(9000)).ids).toHaveLength(8192 - 3);
    await huge.close();
  });

  it("refuses to work after close", async () => {
    const p = await createStaticBertProvider(modelPath);
    await p.close();
    await expect(p.embedBatch(["hello"])).rejects.toThrow(/closed/);
  });

  it("keeps the event loop responsive on big batches", async () => {
    const texts = Array.from(
      { length: 3000 },
      (_, i) => `chunk ${i}: ${"the quick brown fox jumps over the lazy dog ".repeat(30)}`,
    );
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const out = await provider.embedBatch(texts);
    clearInterval(timer);
    expect(out).toHaveLength(3000);
    expect(ticks).toBeGreaterThan(0);
  });
});

describe("family check", () => {
  it("accepts any static-bert file (the F32 tiny test model) and matches node-llama-cpp on it", async () => {
    const tiny = await ensureTinyTestModel(path.join(dir, "tiny"));
    const fast = await createStaticBertProvider(tiny);
    const local = await createLocalProvider({ model: tiny, threads: 1 });
    try {
      expect(fast.identity).toBe(local.identity);
      const texts = [
        "The deploy failed on the build server.",
        "I baked bread in the oven!",
        "nothing known here xyz",
        "Our CI pipeline broke again",
      ];
      const a = await fast.embedBatch(texts);
      const b = await local.embedBatch(texts);
      texts.forEach((t, i) => {
        if (a[i] === null || b[i] === null) expect(a[i], t).toBe(b[i]);
        else for (let d = 0; d < a[i]!.length; d++) expect(Math.abs(a[i]![d]! - b[i]![d]!), t).toBeLessThan(1e-5);
      });
    } finally {
      await fast.close();
      await local.close();
    }
  }, 60_000);

  /** Rewrites the tiny model with a change; returns the new file. */
  async function variant(name: string, change: (kvs: GgufKV[], tensors: GgufTensor[]) => void): Promise<string> {
    const src = await ensureTinyTestModel(path.join(dir, "tiny"));
    const info = await readGgufInfo(src);
    const kvs = info.kv.map((e) => ({ ...e })) as GgufKV[];
    const tensors: GgufTensor[] = [];
    for (const t of info.tensors) {
      tensors.push({
        name: t.name,
        dims: t.dims,
        type: t.ggmlType === 1 ? "f16" : "f32",
        data: await readGgufTensor(src, info, t.name),
      });
    }
    change(kvs, tensors);
    const file = path.join(dir, `${name}.gguf`);
    await writeGguf(file, { kv: kvs, tensors });
    return file;
  }
  const setKv = (kvs: GgufKV[], e: GgufKV): void => {
    const i = kvs.findIndex((k) => k.key === e.key);
    if (i >= 0) kvs[i] = e;
    else kvs.push(e);
  };
  const tensor = (ts: GgufTensor[], name: string): GgufTensor => ts.find((t) => t.name === name)!;

  const refusals: [string, (kvs: GgufKV[], ts: GgufTensor[]) => void, RegExp][] = [
    ["arch", (kvs) => setKv(kvs, kv.string("general.architecture", "llama")), /architecture/],
    ["marker", (kvs) => setKv(kvs, kv.string("cortexd.static_bert", "false")), /cortexd\.static_bert/],
    ["pooling", (kvs) => setKv(kvs, kv.u32("bert.pooling_type", 2)), /pooling/],
    ["tokenizer", (kvs) => setKv(kvs, kv.string("tokenizer.ggml.model", "gpt2")), /WordPiece/],
    [
      "attn-output",
      (_, ts) => void (tensor(ts, "blk.0.attn_output.weight").data[7] = 0.5),
      /attn_output\.weight is not zero/,
    ],
    ["ffn-down", (_, ts) => void (tensor(ts, "blk.0.ffn_down.weight").data[0] = 1), /ffn_down\.weight is not zero/],
    ["positions", (_, ts) => void (tensor(ts, "position_embd.weight").data[40] = 1), /position_embd/],
    [
      "extra-tensor",
      (_, ts) => void ts.push({ name: "output.weight", dims: [4], type: "f32", data: new Float32Array(4) }),
      /unexpected tensor/,
    ],
  ];
  for (const [name, change, message] of refusals) {
    it(`refuses a file with a changed ${name}`, async () => {
      const file = await variant(name, change);
      const err = await loadStaticBertModel(file).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NotStaticBertError);
      expect((err as Error).message).toMatch(message);
    });
  }

  it("uses the file's own LayerNorm parameters (γ, β, ε)", async () => {
    const file = await variant("ln", (kvs, ts) => {
      setKv(kvs, kv.f32("bert.attention.layer_norm_epsilon", 1e-12));
      tensor(ts, "blk.0.layer_output_norm.bias").data.fill(0.25);
    });
    const fast = await createStaticBertProvider(file);
    const local = await createLocalProvider({ model: file, threads: 1 });
    try {
      const texts = ["the deploy failed on the build server", "zzz unknown"];
      const a = await fast.embedBatch(texts);
      const b = await local.embedBatch(texts);
      for (let i = 0; i < texts.length; i++) {
        expect(a[i]).not.toBeNull();
        for (let d = 0; d < a[i]!.length; d++) expect(Math.abs(a[i]![d]! - b[i]![d]!)).toBeLessThan(1e-5);
      }
    } finally {
      await fast.close();
      await local.close();
    }
  }, 60_000);
});
