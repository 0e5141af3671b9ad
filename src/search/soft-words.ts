/**
 * Other words for the same thing: a user asks about "my notebook" where the memory says "laptop",
 * about "the espresso thing" where it says "coffee machine", about "stg" where it says "staging", about
 * "my boss" where it says "manager", about "tromso" where it says "Tromsø", about "postgres" where it says "PostgreSQL". A specific word of the prompt that the index does not hold at all
 * (or an everyday one, when a prompt about the user's own things has nothing but everyday words) counts as held by a candidate
 * memory that holds a word the model puts right beside it (cosine of the two words' vectors ≥ SIMILAR). Only with a static model (a word's
 * vector is a lookup, no inference) and only for the recall's candidates, so the cost is bounded:
 * at most MAX_WORDS distinct words per recall, each embedded once per model (cached).
 */
import type { EmbeddingProvider } from "../embed/provider.js";
import { STOP_WORDS } from "./keyword/index.js";
import { beginsWord, foldLetters } from "./spellings.js";
import type { PromptProfile, PromptWord } from "./relevance.js";
import type { ScannedText } from "./recall-scan.js";

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

/** Per prompt stem a memory holds by other words, those words (lowercase) as the memory writes them. */
export type SoftWords = Map<string, Set<string>>;

/**
 * For each text (a candidate memory), the stems of the prompt's absent specific words it holds by
 * another word — an abbreviation spelled out (any model), a near word (a static model's vectors) —
 * with the words that stand for them (so an excerpt shows the line that holds them).
 */
export async function softlyHeld(
  provider: EmbeddingProvider | null,
  words: readonly PromptWord[],
  texts: readonly string[],
  /** The prompt asks about the user's own things (prompt-intent.ts speaksOfOwn). */
  own = false,
): Promise<SoftWords[]> {
  const out: SoftWords[] = texts.map(() => new Map());
  const add = (i: number, st: string, w: string) => {
    const m = out[i]!;
    const ws = m.get(st);
    if (ws) ws.add(w);
    else m.set(st, new Set([w]));
  };
  // A prompt about the user's own things in everyday words only ("who is my boss?") is about those
  // words: they too may be held by another word. (Not general knowledge: "what is the capital of Australia?")
  const everyday = own && !words.some((w) => !w.frame);
  const absent = words.filter(
    (w) => w.df === 0 && (!w.frame || everyday) && w.word.length >= 3 && /^\p{L}+$/u.test(w.word),
  );
  const short = words.filter((w) => w.df === 0 && !w.frame && isAbbreviation(w.word));
  if (absent.length === 0 && short.length === 0) return out;
  const perText = texts.map((t) => [...new Set((t.toLowerCase().match(WORD) ?? []).filter((w) => !STOP_WORDS.has(w)))]);
  // Abbreviations ("k8s", "stg"): spelled out by a word of the memory, in any mode.
  for (const a of short)
    perText.forEach((ws, i) => {
      for (const w of ws) if (abbreviates(a.word, w)) add(i, a.stem, w);
    });
  // A name spelled with letters FTS5 does not fold ("tromso" for "Tromsø"), or a word typed short
  // ("postgres" for "PostgreSQL"), in any mode.
  if (absent.length > 0) {
    const folds = new Map<string, string>();
    const foldOf = (w: string) => folds.get(w) ?? folds.set(w, foldLetters(w)).get(w)!;
    for (const a of absent) {
      const folded = foldLetters(a.word);
      perText.forEach((ws, i) => {
        for (const w of ws) if (w !== a.word && (foldOf(w) === folded || beginsWord(a.word, w))) add(i, a.stem, w);
      });
    }
  }
  if (!provider?.staticModel || absent.length === 0) return out;
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
      for (const w of ws) if (allowed.has(w) && near.has(w)) add(i, a.stem, w);
    });
  }
  return out;
}

/**
 * The prompt as the decision weighs it once the candidates' other words are known. A frame word the
 * index lacks weighs nothing (relevance.ts); but in a prompt of everyday words only, one a memory
 * holds by another word ("boss" where it says "manager") is what the prompt is about, and weighs
 * as a specific word the index lacks.
 */
export function weighSoftWords(profile: PromptProfile, soft: readonly SoftWords[]): PromptProfile {
  const held = new Set(soft.flatMap((m) => [...m.keys()]));
  if (!profile.words.some((w) => w.frame && w.weight === 0 && held.has(w.stem))) return profile;
  const words = profile.words.map((w) => (w.frame && w.weight === 0 && held.has(w.stem) ? { ...w, weight: w.idf } : w));
  return { ...profile, words, weight: words.reduce((s, w) => s + w.weight, 0) };
}

/** Two-consonant abbreviations of everyday technical writing and the words they stand for. */
const TWO_LETTER: Readonly<Record<string, readonly string[] | undefined>> = Object.assign(Object.create(null), {
  db: ["database", "databases"],
  pg: ["postgres", "postgresql"],
  ts: ["typescript"],
  js: ["javascript"],
  gh: ["github"],
  tz: ["timezone", "timezones"],
  pr: ["pull"],
  vm: ["virtual"],
});

/** The words a two-letter abbreviation of the short list stands for ("db" → database), else none. */
export function spelledOut(token: string): readonly string[] {
  return TWO_LETTER[token] ?? [];
}

/**
 * A short token that may stand for a longer word: a numeronym ("k8s", "i18n"), 3–4 letters with
 * consonants after the first ("stg", "prd"), or two consonants ("db", "ts").
 */
export function isAbbreviation(token: string): boolean {
  return (
    /^\p{L}\d{1,2}\p{L}$/u.test(token) ||
    (/^\p{L}{3,4}$/u.test(token) && !/[aeiou]/.test(token.slice(1))) ||
    TWO_LETTER[token] !== undefined
  );
}

/**
 * Whether `word` is spelled short as `abbr`: a numeronym counts the letters between the first and
 * the last ("k8s" = kubernetes); two letters, from a short list ("db" = database); otherwise the word's
 * first letter and its consonants, repeats merged, begin with the abbreviation ("stg" = staging, not
 * setting; "prd" = production).
 */
export function abbreviates(abbr: string, word: string): boolean {
  // Two letters are too short to spell a word out by rule ("rm" is no "remember"): a short list.
  if (abbr.length === 2) return TWO_LETTER[abbr]?.includes(word) ?? false;
  if (word.length < abbr.length + 3) return false;
  const numeronym = /^(\p{L})(\d{1,2})(\p{L})$/u.exec(abbr);
  if (numeronym)
    return (
      word[0] === numeronym[1] && word[word.length - 1] === numeronym[3] && word.length - 2 === Number(numeronym[2])
    );
  if (word[0] !== abbr[0]) return false;
  let skeleton = word[0]!;
  for (const ch of word.slice(1)) if (!/[aeiouy]/.test(ch) && ch !== skeleton[skeleton.length - 1]) skeleton += ch;
  return skeleton.startsWith(abbr);
}

/**
 * A scanned memory with the prompt stems it holds by other words (softlyHeld): held by the memory,
 * and by each unit that writes one of those words, so the excerpt shows the line that answers.
 */
export function withSoftWords(scan: ScannedText, soft: SoftWords | undefined): ScannedText {
  if (!soft || soft.size === 0) return scan;
  const held = scan.units.map((u, i) => {
    const words = new Set(u.text.toLowerCase().match(WORD) ?? []);
    const also = [...soft].filter(([, ws]) => [...ws].some((w) => words.has(w))).map(([st]) => st);
    return also.length > 0 ? new Set([...scan.held[i]!, ...also]) : scan.held[i]!;
  });
  return { ...scan, held, promptStems: new Set([...scan.promptStems, ...soft.keys()]) };
}
