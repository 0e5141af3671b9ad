/**
 * Other words for the same thing: a user asks about "my notebook" where the memory says "laptop",
 * about "the espresso thing" where it says "coffee machine". A specific word of the prompt that the
 * index does not hold at all counts as held by a candidate memory that holds a word the model puts
 * right beside it (cosine of the two words' vectors ≥ SIMILAR). Only with a static model (a word's
 * vector is a lookup, no inference) and only for the recall's candidates, so the cost is bounded:
 * at most MAX_WORDS distinct words per recall, each embedded once per model (cached).
 */
import type { EmbeddingProvider } from "../embed/provider.js";
import { STOP_WORDS } from "./keyword/index.js";
import type { PromptWord } from "./relevance.js";

/** Two words this close in the model's space name the same thing (GloVe-like: laptop ~ notebook). */
const SIMILAR = 0.64;
/** Distinct candidate words compared per recall (30 chunks of a few hundred words fit). */
const MAX_WORDS = 3000;
/** Word vectors kept per model. */
const CACHE = 50_000;

const caches = new WeakMap<EmbeddingProvider, Map<string, Float32Array | null>>();

async function vectorsOf(
  provider: EmbeddingProvider,
  words: readonly string[],
): Promise<Map<string, Float32Array | null>> {
  let cache = caches.get(provider);
  if (!cache) caches.set(provider, (cache = new Map()));
  const missing = words.filter((w) => !cache.has(w));
  if (missing.length > 0) {
    if (cache.size + missing.length > CACHE) cache.clear();
    const vecs = await (provider.embedQueries ? provider.embedQueries(missing) : provider.embedBatch(missing));
    missing.forEach((w, i) => cache.set(w, normalised(vecs[i] ?? null)));
  }
  return cache;
}

function normalised(v: Float32Array | null): Float32Array | null {
  if (!v) return null;
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  if (n === 0) return null;
  const s = 1 / Math.sqrt(n);
  return Float32Array.from(v, (x) => x * s);
}

function dot(a: Float32Array, b: Float32Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += a[i]! * b[i]!;
  return d;
}

const WORD = /\p{L}{3,}/gu;

/**
 * For each text (a candidate memory), the stems of the prompt's absent specific words it holds by
 * another word. Empty without a static model or without such words.
 */
export async function softlyHeld(
  provider: EmbeddingProvider | null,
  words: readonly PromptWord[],
  texts: readonly string[],
): Promise<Set<string>[]> {
  const out = texts.map(() => new Set<string>());
  const absent = words.filter((w) => w.df === 0 && !w.frame && w.word.length >= 3 && /^\p{L}+$/u.test(w.word));
  if (!provider?.staticModel || absent.length === 0) return out;
  const perText = texts.map((t) => [...new Set((t.toLowerCase().match(WORD) ?? []).filter((w) => !STOP_WORDS.has(w)))]);
  const all = [...new Set(perText.flat())].slice(0, MAX_WORDS);
  const allowed = new Set(all);
  let vecs: Map<string, Float32Array | null>;
  try {
    vecs = await vectorsOf(provider, [...absent.map((w) => w.word), ...all]);
  } catch {
    return out; // no soft evidence; the decision goes on without it
  }
  for (const a of absent) {
    const va = vecs.get(a.word);
    if (!va) continue;
    const near = new Set(all.filter((w) => w !== a.word && (vecs.get(w) ? dot(va, vecs.get(w)!) >= SIMILAR : false)));
    if (near.size === 0) continue;
    perText.forEach((ws, i) => {
      if (ws.some((w) => allowed.has(w) && near.has(w))) out[i]!.add(a.stem);
    });
  }
  return out;
}
