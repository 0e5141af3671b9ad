import { join } from "node:path";
import { writeStaticBertGguf } from "../../src/embed/gguf/static-bert.js";
import { createLocalProvider } from "../../src/embed/local-provider.js";
import type { EmbeddingProvider } from "../../src/embed/provider.js";
import { ensureTinyTestModel, tinyModelData } from "../fixtures/embed/tiny-model.js";

/** The tiny test GGUF through the real node-llama-cpp. */
export async function tinyProvider(): Promise<EmbeddingProvider> {
  return createLocalProvider({ model: await ensureTinyTestModel(), threads: 1 });
}

/** Wraps a provider to count how many texts it embedded. */
export function counting(p: EmbeddingProvider): EmbeddingProvider & { calls: string[] } {
  const calls: string[] = [];
  return Object.assign(Object.create(p) as EmbeddingProvider, {
    calls,
    identity: p.identity,
    modelName: p.modelName,
    dims: p.dims,
    embedBatch: async (texts: readonly string[]) => {
      calls.push(...texts);
      return p.embedBatch(texts);
    },
    stats: () => p.stats(),
    close: () => p.close(),
  });
}

/** A second, different model (same words, other vectors, 16 dims) for model-change tests. */
export async function otherModelPath(dir: string): Promise<string> {
  const { words, vectors } = tinyModelData();
  const dims = 16;
  const out = new Float32Array(words.length * dims);
  for (let w = 0; w < words.length; w++)
    for (let d = 0; d < dims; d++) out[w * dims + d] = vectors[w * 32 + d]! - vectors[w * 32 + d + 16]!;
  const path = join(dir, "other-model.gguf");
  await writeStaticBertGguf(path, { name: "other", words, dims, vectors: out, tensorType: "f32" });
  return path;
}

/** The built-in model (the default provider), built once into os.tmpdir()/cortexd-test-models. */
export async function builtinProvider(): Promise<EmbeddingProvider> {
  const { BUILTIN_BUILDER_VERSION } = await import("../../src/embed/builtin/build.js");
  const { ensureBuiltinModel } = await import("../../src/embed/builtin/ensure.js");
  const { createStaticBertProvider } = await import("../../src/embed/builtin/fast-provider.js");
  const { tmpdir } = await import("node:os");
  return createStaticBertProvider(
    await ensureBuiltinModel(join(tmpdir(), "cortexd-test-models", `builtin-v${BUILTIN_BUILDER_VERSION}`)),
  );
}
