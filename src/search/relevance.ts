import type { RecallConfig } from "../config/schema.js";
import type { EmbeddingProvider } from "../embed/provider.js";
import type { IndexStore } from "../index/repos/store.js";
import { stem } from "./excerpt.js";
import { STOP_WORDS } from "./keyword/index.js";
import { isFrameWord } from "./frame-words.js";
import { WORD_CHAR, lowerWords } from "../util/word-chars.js";

/** Words of two characters or more. */
const TWO_CHAR_WORDS = new RegExp(`${WORD_CHAR}{2,}`, "gu");

/**
 * The relevance decision of recall: is a candidate memory a real match for the prompt, or merely
 * the best of unrelated memories? Search always ranks something first; recall must be able to say
 * "nothing". Two kinds of evidence, each calibrated on the index itself:
 *
 * - keyword: the share of the prompt's word weight the memory holds. A word weighs its idf in this
 *   index; a word the index does not hold at all weighs the most (the prompt is about something
 *   the memory does not know). The memory must hold at least one rare word (in ≤ rareShare of the
 *   chunks: a name found in every chunk is no evidence) and minCoverage of the weight.
 * - vector: how far the memory's similarity to the prompt stands above the prompt's similarity to
 *   memories at random — a null distribution from a sample of the index's own vectors (cached
 *   until the chunk count changes): z = (similarity − mean) / sd ≥ vectorZ.
 *
 * And one about the prompt as a whole: a prompt that names one of the memory's own subjects (a
 * capitalised word, not opening a sentence, that most chunks hold — the user's, a person's or a
 * project's name) is about this memory even when no single memory stands out; then the ranking
 * decides which memories come first.
 */

export interface PromptWord {
  word: string;
  stem: string;
  /** Chunks holding it. */
  df: number;
  idf: number;
  /** What holding it weighs in a memory's coverage: its idf, less for the prompt's frame (see promptWords). */
  weight: number;
  /** One of the most frequent English words (frame-words.ts). */
  frame: boolean;
  rare: boolean;
  /** Written as a name in the prompt (capitalised, not at the start of a sentence) and held by at least subjectShare of the chunks: a subject of this memory. */
  subject: boolean;
}

export interface PromptProfile {
  words: PromptWord[];
  /** Σ idf over the prompt's words. */
  weight: number;
  /** The memory's own subjects the prompt names (see PromptWord.subject). */
  subjects: string[];
  chunks: number;
  /** Mean and standard deviation of the prompt's similarity to random memories (null without vectors). */
  nullSim: { mean: number; sd: number; n: number } | null;
}

export interface Evidence {
  /** Share of the prompt's word weight the memory holds. */
  coverage: number;
  /** The prompt words it holds, and the rare ones among them. */
  words: string[];
  rareWords: string[];
  /** Standard deviations above the prompt's similarity to random memories (null without vectors). */
  vectorZ: number | null;
  keyword: boolean;
  vector: boolean;
}

/**
 * Words that acknowledge or steer a conversation ("yes", "thanks", "go ahead", "next step please")
 * and name no topic: an agent gets such prompts all day, and a memory that happens to hold the word
 * is no match. Not stop words for search (a memory may be searched for "thanks"), only for this decision.
 */
const CONVERSATIONAL = new Set(
  [
    "yes yeah yep yup no nope ok okay k sure thanks thank thx ty please pls plz great good nice cool perfect awesome fine alright right correct exactly agreed",
    "go ahead continue proceed next step steps done lgtm sounds again retry try more keep going carry hi hello hey bye",
    // The frame of a question, not its topic ("how many times …", "what kinds of …").
    "many much times often kind kinds type types sort sorts",
  ]
    .join(" ")
    .split(" "),
);

/** Vectors sampled per index for the null distribution. */
const NULL_SAMPLE = 256;
/**
 * The sampled vectors, and those of one length (the query's) one after another in one array with
 * their squared norms (Σ v², summed as similarityStats always did): read in one sweep per recall.
 */
interface NullSample {
  vectors: Float32Array[];
  flat?: { dims: number; values: Float32Array; norms: Float64Array };
}
const nullSamples = new WeakMap<IndexStore, { key: number; sample: NullSample }>();

/**
 * The index's null sample, read again when the chunk count has moved by a sixteenth since it was
 * taken (any move while it holds fewer than NULL_SAMPLE vectors): a memory saved on every turn
 * does not cost each next recall a fresh sample, and the statistic of 256 random memories does
 * not move with one more.
 */
function sampleOf(store: IndexStore): NullSample {
  const key = store.ftsTotals().rows;
  const hit = nullSamples.get(store);
  if (hit && (hit.key === key || (hit.sample.vectors.length >= NULL_SAMPLE && Math.abs(key - hit.key) * 16 < hit.key)))
    return hit.sample;
  const vectors = store.vectorSample(NULL_SAMPLE);
  const sample = { vectors };
  nullSamples.set(store, { key, sample });
  return sample;
}

/** The sample's vectors of `dims` dimensions, in one array, with their squared norms. */
function flatOf(sample: NullSample, dims: number): NonNullable<NullSample["flat"]> {
  if (sample.flat?.dims === dims) return sample.flat;
  const vectors = sample.vectors.filter((v) => v.length === dims);
  const values = new Float32Array(vectors.length * dims);
  vectors.forEach((v, k) => values.set(v, k * dims));
  return (sample.flat = { dims, values, norms: Float64Array.from(vectors, squaredNorm) });
}

function squaredNorm(v: Float32Array): number {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  return n;
}

/** Words written as names: capitalised (or all capitals) and not the first word of a sentence. */
function namedWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/(^|[.!?]\s+|[\s"'(])(\p{Lu}[\p{L}\p{N}]*)/gu)) {
    const atStart = m.index === 0 || /[.!?]\s+$/.test(m[1]!) || text.slice(0, m.index + m[1]!.length).trim() === "";
    if (!atStart) out.add(m[2]!.toLowerCase());
  }
  return out;
}

/**
 * The prompt's words that can say what it is about (one per stem): not stop words, not the words
 * that acknowledge or steer a conversation, not one letter. Without any, no memory holds a word of
 * the prompt's weight (keyword evidence is impossible).
 */
export function topicWords(query: string): { word: string; stem: string }[] {
  const seen = new Set<string>();
  const raw: { word: string; stem: string }[] = [];
  for (const w of lowerWords(query).slice(0, 64)) {
    if (STOP_WORDS.has(w) || CONVERSATIONAL.has(w) || w.length < 2) continue;
    const st = stem(w);
    if (seen.has(st)) continue;
    seen.add(st);
    raw.push({ word: w, stem: st });
  }
  return raw;
}

/** The prompt's content words with their weight in this index (one entry per stem). */
export function promptWords(
  query: string,
  store: IndexStore,
  cfg: Pick<RecallConfig, "rareShare" | "subjectShare">,
): { words: PromptWord[]; chunks: number } {
  const raw = topicWords(query);
  if (raw.length === 0) return { words: [], chunks: store.ftsTotals().rows };
  const { stats, chunks } = store.termStats(raw.map((r) => r.word));
  const named = namedWords(query);
  const words = raw.map((r, i) => {
    const df = Math.min(chunks, stats[i]?.df ?? 0);
    const idf = Math.log(1 + (chunks - df + 0.5) / (df + 0.5));
    return {
      ...r,
      df,
      idf,
      weight: wordWeight(r.word, df, idf),
      frame: isFrameWord(r.word),
      rare: df > 0 && df <= Math.max(2, cfg.rareShare * chunks),
      subject: named.has(r.word) && chunks > 0 && df >= cfg.subjectShare * chunks,
    };
  });
  return { words: frameCapped(words), chunks };
}

/**
 * The prompt's frame never weighs more than what it is about: a frame word the index holds rarely
 * ("anything", "lately" in "anything about the staging database lately?", once each in the notes)
 * weighs at most as much as the lightest of the prompt's other words the index holds.
 */
function frameCapped<W extends { frame: boolean; df: number; weight: number }>(words: W[]): W[] {
  const topic = words.filter((w) => !w.frame && w.df > 0);
  if (topic.length === 0) return words;
  const cap = Math.min(...topic.map((w) => w.weight));
  return words.map((w) => (w.frame && w.weight > cap ? { ...w, weight: cap } : w));
}

/**
 * A word's weight in a memory's coverage: its idf, but nothing for a frame word the index does not
 * hold ("look", "fix", "time" in "the invoices look garbled again, what was the fix last time?"):
 * the prompt's frame is not what it is about, and no memory lacking it is the less about the topic.
 * A specific word the index lacks keeps its (high) weight: the prompt is about something the
 * memory does not know.
 */
function wordWeight(word: string, df: number, idf: number): number {
  return df === 0 && isFrameWord(word) ? 0 : idf;
}

/** What a prompt looks like to this index: its weighted words and its similarity to random memories. */
export async function profilePrompt(
  /** The prompt's topic: its text less any date phrases. */
  topic: string,
  /** The whole prompt (embedded for the vector null). */
  query: string,
  store: IndexStore,
  provider: EmbeddingProvider | null,
  cfg: Pick<RecallConfig, "rareShare" | "subjectShare">,
  /** The query's embedding when the search already made it (else it is embedded here). */
  queryVector?: Float32Array,
): Promise<PromptProfile> {
  const { words, chunks } = promptWords(topic, store, cfg);
  const weight = words.reduce((s, w) => s + w.weight, 0);
  let nullSim: PromptProfile["nullSim"] = null;
  if (provider && store.vectorDims !== null && query.trim() !== "") {
    const sample = sampleOf(store);
    if (sample.vectors.length >= 8) {
      try {
        const [q] = queryVector
          ? [queryVector]
          : await (provider.embedQueries ? provider.embedQueries([query]) : provider.embedBatch([query]));
        if (q) nullSim = similarityStats(q, sample);
      } catch {
        // No vector evidence for this prompt; keyword evidence still decides.
      }
    }
  }
  return { words, weight, subjects: words.filter((w) => w.subject).map((w) => w.word), chunks, nullSim };
}

function similarityStats(q: Float32Array, sample: NullSample): { mean: number; sd: number; n: number } {
  // Plain loops over typed arrays (no growing array): recall runs this every time.
  const dims = q.length;
  const { values, norms } = flatOf(sample, dims);
  const n = norms.length;
  const sims = new Float64Array(n);
  const nq = squaredNorm(q);
  const qd = Float64Array.from(q);
  const sim = (k: number, dot: number) => {
    const nv = norms[k]!;
    return nv > 0 && nq > 0 ? dot / Math.sqrt(nv * nq) : 0;
  };
  // Four sampled vectors a pass: each dot product still sums in order (the same value), four in flight.
  let k = 0;
  for (let off = 0; k + 4 <= n; k += 4, off += 4 * dims) {
    let d0 = 0, d1 = 0, d2 = 0, d3 = 0; // prettier-ignore
    for (let i = 0; i < dims; i++) {
      const x = qd[i]!;
      d0 += x * values[off + i]!;
      d1 += x * values[off + dims + i]!;
      d2 += x * values[off + 2 * dims + i]!;
      d3 += x * values[off + 3 * dims + i]!;
    }
    sims[k] = sim(k, d0);
    sims[k + 1] = sim(k + 1, d1);
    sims[k + 2] = sim(k + 2, d2);
    sims[k + 3] = sim(k + 3, d3);
  }
  for (let off = k * dims; k < n; k++, off += dims) {
    let dot = 0;
    for (let i = 0; i < dims; i++) dot += qd[i]! * values[off + i]!;
    sims[k] = sim(k, dot);
  }
  let sum = 0;
  for (let k = 0; k < n; k++) sum += sims[k]!;
  const mean = sum / Math.max(1, n);
  let squares = 0;
  for (let k = 0; k < n; k++) squares += (sims[k]! - mean) ** 2;
  const sd = Math.sqrt(squares / Math.max(1, n - 1));
  return { mean, sd: Math.max(sd, 1e-3), n };
}

/**
 * The prompt's stems a text holds (the plain computation; recall reads each candidate once with
 * recall-scan.ts, which gives the same). Only the text's words that begin like one of the prompt's
 * stems are stemmed (Porter keeps a word's first two letters).
 */
export function heldStems(text: string, p: { words: readonly PromptWord[] }): Set<string> {
  const out = new Set<string>();
  if (p.words.length === 0) return out;
  const byPrefix = new Map<string, string[]>();
  for (const w of new Set(text.toLowerCase().match(TWO_CHAR_WORDS) ?? [])) {
    if (STOP_WORDS.has(w)) continue; // "on" is not "one", though both stem to "on"
    const k = w.slice(0, 2);
    const list = byPrefix.get(k);
    if (list) list.push(w);
    else byPrefix.set(k, [w]);
  }
  for (const w of p.words) {
    const list = byPrefix.get(w.stem.slice(0, 2));
    if (list?.some((x) => stem(x) === w.stem)) out.add(w.stem);
  }
  return out;
}

/**
 * Whether a memory's shown text (an excerpt of its chunk) holds every one of these prompt words:
 * those its chunk's evidence lacks are not read for.
 */
export function holdsEvery(shown: string, chunkWords: readonly string[], words: readonly PromptWord[]): boolean {
  if (!words.every((w) => chunkWords.includes(w.word))) return false;
  const held = heldStems(shown, { words });
  return words.every((w) => held.has(w.stem));
}

/** The evidence that a memory (its text and vector similarity to the prompt) matches the prompt. */
export function evidenceFor(
  text: string,
  vectorScore: number,
  p: PromptProfile,
  cfg: Pick<RecallConfig, "minCoverage" | "vectorZ">,
): Evidence {
  return judge(heldStems(text, p), vectorScore, p, cfg);
}

/**
 * Expected chunks holding all of a set of words by chance, at most: N · Π(df/N) ≤ TOGETHER. Words
 * that co-occur this far beyond chance in one memory ("warehouse" and "upload" in 2 of 446 chunks
 * each) say what it is about, whatever else the prompt says ("the warehouse folks cant upload their
 * giant spreadsheet again, what limit did we bump?").
 */
const TOGETHER = 0.01;

/** Whether a memory holds two or more of the prompt's specific words that chance would not put together. */
function together(stems: ReadonlySet<string>, p: PromptProfile): boolean {
  if (p.chunks === 0) return false;
  let n = 0;
  let surprise = -Math.log(p.chunks);
  for (const w of p.words) {
    if (w.frame || w.df === 0 || !stems.has(w.stem)) continue;
    n++;
    surprise += Math.log(p.chunks / w.df);
  }
  return n >= 2 && surprise >= -Math.log(TOGETHER);
}

/** The evidence from the prompt stems a memory holds (heldStems) and its vector similarity. */
export function judge(
  stems: ReadonlySet<string>,
  vectorScore: number,
  p: PromptProfile,
  cfg: Pick<RecallConfig, "minCoverage" | "vectorZ">,
): Evidence {
  let held = 0;
  const words: string[] = [];
  const rareWords: string[] = [];
  // A prompt naming something specific (a word outside the frame) is matched by a memory holding
  // one of its specific words; its everyday words alone are no topic.
  const specific = p.words.some((w) => !w.frame);
  for (const w of p.words) {
    if (!stems.has(w.stem)) continue;
    held += w.weight;
    words.push(w.word);
    // A word the index lacks is held only by another word for it (soft-words.ts): as topical as a rare one.
    if ((w.rare || w.df === 0) && (!specific || !w.frame)) rareWords.push(w.word);
  }
  const coverage = p.weight > 0 ? held / p.weight : 0;
  const vectorZ = p.nullSim && vectorScore > 0 ? (vectorScore - p.nullSim.mean) / p.nullSim.sd : null;
  return {
    coverage,
    words,
    rareWords,
    vectorZ,
    // A memory holding (nearly) all of a prompt's words matches even when the whole memory is about
    // them; one holding specific words together that chance would not put together matches however
    // many other words the prompt has.
    keyword:
      (coverage >= cfg.minCoverage && (rareWords.length > 0 || (coverage >= 0.9 && words.length >= 2))) ||
      together(stems, p),
    vector: vectorZ !== null && vectorZ >= cfg.vectorZ,
  };
}
