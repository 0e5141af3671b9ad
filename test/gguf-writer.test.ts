import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { f16BitsToF32, f32ToF16Bits, roundToF16 } from "../src/embed/gguf/f16.js";
import { ggufLoadProblem } from "../src/embed/gguf/preflight.js";
import { GgufFormatError, ggufValue, readGgufInfo, readGgufTensor } from "../src/embed/gguf/reader.js";
import { STATIC_BERT_SPECIAL_TOKENS, WORD_PREFIX, writeStaticBertGguf } from "../src/embed/gguf/static-bert.js";
import { kv, writeGguf, type GgufContent, type GgufKV } from "../src/embed/gguf/writer.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cortexd-gguf-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sha256 = async (p: string): Promise<string> =>
  createHash("sha256")
    .update(await readFile(p))
    .digest("hex");

function sampleKVs(): GgufKV[] {
  return [
    kv.string("general.architecture", "test"),
    kv.string("general.name", "ünïcödé ▁name ✓"),
    { key: "t.u8", type: "u8", value: 250 },
    { key: "t.i8", type: "i8", value: -7 },
    { key: "t.u16", type: "u16", value: 65_000 },
    { key: "t.i16", type: "i16", value: -30_000 },
    kv.u32("t.u32", 4_000_000_000),
    kv.i32("t.i32", -2_000_000_000),
    kv.f32("t.f32", 1e6),
    { key: "t.f64", type: "f64", value: Math.PI },
    { key: "t.u64", type: "u64", value: 2n ** 60n + 3n },
    { key: "t.i64", type: "i64", value: -(2n ** 40n) },
    kv.bool("t.true", true),
    kv.bool("t.false", false),
    kv.strings("t.strings", ["[PAD]", "▁hello", "", "naïve"]),
    kv.i32s("t.i32s", [1, 2, 3, -4]),
    kv.f32s("t.f32s", [0.5, -1.25]),
    { key: "t.bools", type: "array", itemType: "bool", value: [true, false, true] },
    { key: "t.empty", type: "array", itemType: "u32", value: [] },
  ];
}

function sampleContent(): GgufContent {
  const a = new Float32Array(3 * 5).map((_, i) => Math.sin(i) * 10);
  const b = new Float32Array(7).map((_, i) => i / 3 - 1);
  const c = new Float32Array(4 * 6).map((_, i) => Math.cos(i * 1.7) * 1000);
  return {
    kv: sampleKVs(),
    tensors: [
      { name: "a.weight", dims: [3, 5], type: "f32", data: a },
      { name: "b.bias", dims: [7], type: "f32", data: b },
      { name: "c.f16", dims: [4, 6], type: "f16", data: c },
    ],
  };
}

describe("f16 conversion", () => {
  it("encodes known values", () => {
    expect(f32ToF16Bits(1)).toBe(0x3c00);
    expect(f32ToF16Bits(-2)).toBe(0xc000);
    expect(f32ToF16Bits(0)).toBe(0);
    expect(f32ToF16Bits(-0)).toBe(0x8000);
    expect(f32ToF16Bits(65504)).toBe(0x7bff);
    expect(f32ToF16Bits(65520)).toBe(0x7c00); // tie rounds to even → Inf
    expect(f32ToF16Bits(1e9)).toBe(0x7c00);
    expect(f32ToF16Bits(-Infinity)).toBe(0xfc00);
    expect(f32ToF16Bits(0.1)).toBe(0x2e66);
    expect(f32ToF16Bits(2 ** -24)).toBe(0x0001);
    expect(f32ToF16Bits(2 ** -25)).toBe(0); // tie to even → 0
    expect(f32ToF16Bits(2 ** -25 * 1.0001)).toBe(1);
    expect(f32ToF16Bits(2 ** -14)).toBe(0x0400);
    expect(f32ToF16Bits(1 + 2 ** -11)).toBe(0x3c00); // tie → even
    expect(f32ToF16Bits(1 + 3 * 2 ** -11)).toBe(0x3c02); // tie → even (up)
    expect(Number.isNaN(f16BitsToF32(f32ToF16Bits(NaN)))).toBe(true);
  });

  it("round-trips every finite half value", () => {
    const bad: number[] = [];
    for (let h = 0; h < 0x10000; h++) {
      const v = f16BitsToF32(h);
      if (!Number.isNaN(v) && f32ToF16Bits(v) !== h) bad.push(h);
    }
    expect(bad).toEqual([]);
  });

  it("rounds to the nearest half", () => {
    let seed = 1;
    const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const bad: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      const x = Math.fround((rand() - 0.5) * 2 ** Math.floor(rand() * 40 - 26));
      const h = f32ToF16Bits(x);
      const mag = h & 0x7fff;
      if (mag === 0 || mag >= 0x7bff) continue; // neighbours below are checked by exact cases above
      const err = Math.abs(x - f16BitsToF32(h));
      if (err > Math.abs(x - f16BitsToF32(h + 1)) || err > Math.abs(x - f16BitsToF32(h - 1))) bad.push(x);
    }
    expect(bad).toEqual([]);
  });
});

describe("writeGguf / readGgufInfo", () => {
  it("is deterministic: two writes are byte-identical", async () => {
    const p1 = path.join(dir, "det1.gguf");
    const p2 = path.join(dir, "det2.gguf");
    const r1 = await writeGguf(p1, sampleContent());
    const r2 = await writeGguf(p2, sampleContent());
    expect(r1.sha256).toBe(r2.sha256);
    expect(await sha256(p1)).toBe(r1.sha256);
    expect(await sha256(p2)).toBe(r1.sha256);
    expect((await readFile(p1)).length).toBe(r1.bytes);
  });

  it("round-trips metadata and tensors (incl. f16) with aligned offsets", async () => {
    const p = path.join(dir, "rt.gguf");
    const content = sampleContent();
    await writeGguf(p, content);
    const info = await readGgufInfo(p);
    expect(info.version).toBe(3);
    expect(info.alignment).toBe(32);
    expect(info.dataOffset % 32).toBe(0);
    expect(info.kv).toEqual(content.kv.map((e) => (e.type === "f32" ? { ...e, value: Math.fround(e.value) } : e)));
    expect(ggufValue(info, "t.u64")).toBe(2n ** 60n + 3n);
    expect(info.tensors.map((t) => [t.name, t.dims, t.ggmlType])).toEqual([
      ["a.weight", [3, 5], 0],
      ["b.bias", [7], 0],
      ["c.f16", [4, 6], 1],
    ]);
    expect(info.tensors.map((t) => t.offset)).toEqual([0, 64, 96]);
    const [a, b, c] = content.tensors;
    expect(await readGgufTensor(p, info, "a.weight")).toEqual(a!.data);
    expect(await readGgufTensor(p, info, "b.bias")).toEqual(b!.data);
    expect(await readGgufTensor(p, info, "c.f16")).toEqual(roundToF16(c!.data));
    expect(info.fileSize).toBe(info.dataOffset + 96 + 64);
    await expect(readGgufTensor(p, info, "nope")).rejects.toThrow(GgufFormatError);
  });

  it("rejects invalid content and leaves no file behind", async () => {
    const p = path.join(dir, "bad.gguf");
    await expect(writeGguf(p, { kv: [kv.u32("x", 1), kv.u32("x", 2)], tensors: [] })).rejects.toThrow(
      /duplicate metadata key/,
    );
    const t = { name: "t", dims: [2, 2], type: "f32" as const, data: new Float32Array(3) };
    await expect(writeGguf(p, { kv: [], tensors: [t] })).rejects.toThrow(/dims need 4/);
    await expect(
      writeGguf(p, {
        kv: [],
        tensors: [
          { ...t, data: new Float32Array(4) },
          { ...t, data: new Float32Array(4) },
        ],
      }),
    ).rejects.toThrow(/duplicate tensor/);
    const names = await readdir(dir);
    expect(names).not.toContain("bad.gguf");
    expect(names.filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  it("reader rejects non-GGUF and truncated files", async () => {
    const garbage = path.join(dir, "garbage.bin");
    await writeFile(garbage, Buffer.from("this is not a gguf file at all, just text".repeat(10)));
    await expect(readGgufInfo(garbage)).rejects.toThrow(/bad magic/);
    const good = path.join(dir, "good.gguf");
    await writeGguf(good, sampleContent());
    const bytes = await readFile(good);
    for (const cut of [10, 60, 200, bytes.length - 40]) {
      const trunc = path.join(dir, `trunc-${cut}.gguf`);
      await writeFile(trunc, bytes.subarray(0, cut));
      await expect(readGgufInfo(trunc)).rejects.toThrow(GgufFormatError);
    }
  });

  it("writes a ~20 MB model in pieces, quickly", async () => {
    const words = 50_000;
    const dims = 100;
    const vocab = Array.from({ length: words }, (_, i) => `tok${i}`);
    const data = new Float32Array(words * dims).map((_, i) => (i % 997) / 997 - 0.5);
    const p = path.join(dir, "big.gguf");
    const t0 = performance.now();
    const r = await writeGguf(p, {
      kv: [kv.string("general.architecture", "test"), kv.strings("tokenizer.ggml.tokens", vocab)],
      tensors: [{ name: "token_embd.weight", dims: [dims, words], type: "f32", data }],
    });
    const ms = performance.now() - t0;
    expect(r.bytes).toBeGreaterThan(20_000_000);
    expect(ms).toBeLessThan(15_000);
    const info = await readGgufInfo(p);
    expect((ggufValue(info, "tokenizer.ggml.tokens") as string[]).length).toBe(words);
    const back = await readGgufTensor(p, info, "token_embd.weight");
    expect(back[12_345]).toBe(data[12_345]);
    await rm(p);
  });
});

describe("writeStaticBertGguf", () => {
  const spec = () => ({
    name: "static-test",
    words: ["hello", "world", "."],
    dims: 8,
    vectors: new Float32Array(24).map((_, i) => i / 10),
    contextLength: 64,
    metadata: { "general.license": "MIT", "general.source.url": "https://example.invalid" },
  });

  it("writes the bert keys, tokens and tensors llama.cpp needs", async () => {
    const p = path.join(dir, "sb.gguf");
    const r = await writeStaticBertGguf(p, spec());
    expect(r.sha256).toBe(await sha256(p));
    const info = await readGgufInfo(p);
    expect(ggufLoadProblem(info)).toBeUndefined();
    expect(ggufValue(info, "general.architecture")).toBe("bert");
    expect(ggufValue(info, "bert.embedding_length")).toBe(8);
    expect(ggufValue(info, "bert.context_length")).toBe(64);
    expect(ggufValue(info, "bert.pooling_type")).toBe(1);
    expect(info.kv.find((e) => e.key === "bert.attention.layer_norm_epsilon")?.type).toBe("f32");
    expect(ggufValue(info, "general.license")).toBe("MIT");
    expect(ggufValue(info, "tokenizer.ggml.tokens")).toEqual([
      ...STATIC_BERT_SPECIAL_TOKENS,
      `${WORD_PREFIX}hello`,
      `${WORD_PREFIX}world`,
      `${WORD_PREFIX}.`,
    ]);
    expect(ggufValue(info, "tokenizer.ggml.token_type")).toEqual([3, 2, 3, 3, 3, 1, 1, 1]);
    const embd = await readGgufTensor(p, info, "token_embd.weight");
    expect(info.tensors.find((t) => t.name === "token_embd.weight")).toMatchObject({ dims: [8, 8], ggmlType: 1 });
    expect(Array.from(embd.subarray(0, 40))).toEqual(new Array(40).fill(0));
    expect(embd.subarray(40)).toEqual(roundToF16(spec().vectors));
    // Same spec → same bytes.
    expect((await writeStaticBertGguf(path.join(dir, "sb2.gguf"), spec())).sha256).toBe(r.sha256);
  });

  it("rejects duplicate words, bad vector lengths and reserved metadata keys", async () => {
    const p = path.join(dir, "sb-bad.gguf");
    await expect(writeStaticBertGguf(p, { ...spec(), words: ["a", "b", "a"] })).rejects.toThrow(/duplicate word/);
    await expect(writeStaticBertGguf(p, { ...spec(), vectors: new Float32Array(5) })).rejects.toThrow(/expected 3 × 8/);
    await expect(writeStaticBertGguf(p, { ...spec(), metadata: { "bert.pooling_type": "x" } })).rejects.toThrow(
      /reserved/,
    );
  });

  it("preflight flags metadata that would crash llama.cpp", () => {
    const base = [
      kv.string("general.architecture", "bert"),
      kv.u32("bert.block_count", 1),
      kv.u32("bert.feed_forward_length", 1),
      kv.u32("bert.embedding_length", 8),
      kv.u32("bert.attention.head_count", 1),
      kv.u32("bert.pooling_type", 1),
      kv.string("tokenizer.ggml.model", "bert"),
      kv.strings("tokenizer.ggml.tokens", ["[UNK]", "▁a"]),
      kv.u32("tokenizer.ggml.unknown_token_id", 0),
    ];
    expect(ggufLoadProblem({ kv: base })).toBeUndefined();
    const without = (k: string) => ({ kv: base.filter((e) => e.key !== k) });
    expect(ggufLoadProblem(without("tokenizer.ggml.unknown_token_id"))).toMatch(/unknown_token_id/);
    expect(ggufLoadProblem(without("bert.feed_forward_length"))).toMatch(/feed_forward_length/);
    expect(ggufLoadProblem(without("bert.pooling_type"))).toMatch(/pooling_type/);
    expect(ggufLoadProblem({ kv: base.map((e) => (e.key === "bert.block_count" ? kv.u32(e.key, 0) : e)) })).toMatch(
      /block_count/,
    );
    expect(
      ggufLoadProblem({ kv: base.map((e) => (e.key === "tokenizer.ggml.tokens" ? kv.strings(e.key, ["x", "x"]) : e)) }),
    ).toMatch(/duplicate/);
  });
});
