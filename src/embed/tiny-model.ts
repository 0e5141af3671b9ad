/**
 * "The test model": a tiny (≈300 words, 32 dims, F32) static-bert GGUF generated from a
 * fixed seed. Words of one topic share a base vector plus small noise, so sentences
 * about the same topic embed close together; function words get small random vectors.
 */
import { mkdir, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { writeStaticBertGguf } from "./gguf/static-bert.js";
import { mulberry32 } from "../util/prng.js";

export const TINY_MODEL_DIMS = 32;
/** Bump when the generated content changes (part of the cached file name). */
export const TINY_MODEL_VERSION = 1;
export const TINY_MODEL_FILE = `cortexd-tiny-test-v${TINY_MODEL_VERSION}.gguf`;

/** Topic word lists (lowercase, unique across topics). */
export const TINY_MODEL_TOPICS: Readonly<Record<string, readonly string[]>> = {
  software: [
    "deploy", "deployed", "deployment", "build", "builds", "server", "servers", "pipeline", "ci", "broke", "broken",
    "failed", "failing", "failure", "release", "released", "bug", "bugs", "code", "commit", "merge", "test", "tests",
    "crash", "crashed", "database", "api", "docker", "kubernetes", "staging", "production", "rollback", "compile",
  ],
  cooking: [
    "bread", "bake", "baked", "baking", "oven", "flour", "dough", "yeast", "recipe", "cook", "cooked", "cooking",
    "kitchen", "dinner", "lunch", "breakfast", "soup", "pasta", "sauce", "salt", "sugar", "butter", "cake", "cookies",
    "pizza", "garlic", "onion", "roast", "fried", "chef",
  ],
  travel: [
    "travel", "trip", "flight", "flights", "airport", "hotel", "passport", "vacation", "beach", "train", "luggage",
    "ticket", "tickets", "visa", "tour", "paris", "tokyo", "journey", "booked", "suitcase", "abroad", "holiday",
    "destination", "itinerary", "museum", "sightseeing",
  ],
  health: [
    "doctor", "health", "hospital", "sick", "fever", "medicine", "pain", "appointment", "exercise", "gym", "running",
    "sleep", "diet", "headache", "nurse", "therapy", "injury", "knee", "vaccine", "symptoms", "clinic", "prescription",
    "workout", "healthy", "tired",
  ],
  music: [
    "music", "song", "songs", "guitar", "piano", "concert", "band", "album", "sing", "singing", "drums", "melody",
    "lyrics", "playlist", "jazz", "rock", "orchestra", "violin", "chord", "chords", "rehearsal", "gig", "vinyl",
    "spotify", "tune",
  ],
  family: [
    "family", "mom", "dad", "mother", "father", "sister", "brother", "kids", "children", "son", "daughter", "wife",
    "husband", "grandma", "grandpa", "parents", "birthday", "wedding", "cousin", "aunt", "uncle", "baby", "home",
    "anniversary", "niece", "nephew",
  ],
  pets: [
    "dog", "dogs", "cat", "cats", "puppy", "kitten", "vet", "leash", "walk", "walked", "bark", "barking", "pet",
    "pets", "fur", "adopted", "shelter", "treats", "fish", "hamster", "parrot", "collar",
  ],
  money: [
    "money", "bank", "budget", "salary", "rent", "mortgage", "loan", "savings", "invest", "stocks", "tax", "taxes",
    "paid", "pay", "bills", "invoice", "expensive", "cheap", "price", "credit", "debt", "dollars", "cost",
  ],
};

/** Common function words and generic verbs: small vectors, so they barely move the mean. */
export const TINY_MODEL_FUNCTION_WORDS: readonly string[] = [
  "the", "a", "an", "on", "in", "at", "to", "of", "and", "or", "but", "our", "my", "your", "their", "his", "her",
  "i", "we", "you", "he", "she", "they", "it", "is", "was", "were", "are", "be", "been", "has", "have", "had", "do",
  "did", "this", "that", "these", "with", "for", "from", "by", "about", "after", "before", "again", "today",
  "yesterday", "tomorrow", "last", "next", "week", "night", "some", "all", "new", "old", "very", "not", "no", "yes",
  "so", "then", "just", "got", "went", "made", "make", "when", "what", "why", "how",
];

/** Punctuation marks (each is its own WordPiece word): zero vectors. */
export const TINY_MODEL_PUNCTUATION: readonly string[] = [".", ",", "!", "?", "'", ":", ";", "-", "(", ")", "\""];

/** Approximately standard normal (sum of 4 uniforms, variance-scaled); deterministic given `rand`. */
function gauss(rand: () => number): number {
  return (rand() + rand() + rand() + rand() - 2) * Math.sqrt(3);
}

/** Build the tiny model's vocabulary and vectors (deterministic). */
export function tinyModelData(): { words: string[]; vectors: Float32Array } {
  const dims = TINY_MODEL_DIMS;
  const rand = mulberry32(0xc0 * 1000 + TINY_MODEL_VERSION);
  const words: string[] = [];
  const rows: number[][] = [];
  for (const topicWords of Object.values(TINY_MODEL_TOPICS)) {
    const base = Array.from({ length: dims }, () => gauss(rand));
    for (const w of topicWords) {
      words.push(w);
      rows.push(base.map((b) => b + 0.35 * gauss(rand)));
    }
  }
  for (const w of TINY_MODEL_FUNCTION_WORDS) {
    words.push(w);
    rows.push(Array.from({ length: dims }, () => 0.05 * gauss(rand)));
  }
  for (const w of TINY_MODEL_PUNCTUATION) {
    words.push(w);
    rows.push(new Array<number>(dims).fill(0));
  }
  const vectors = new Float32Array(words.length * dims);
  rows.forEach((r, i) => vectors.set(r, i * dims));
  return { words, vectors };
}

/** Write the tiny test model to `filePath` (atomically). */
export async function writeTinyTestModel(filePath: string): Promise<void> {
  const { words, vectors } = tinyModelData();
  await writeStaticBertGguf(filePath, {
    name: "cortexd-tiny-test",
    words,
    dims: TINY_MODEL_DIMS,
    vectors,
    tensorType: "f32",
    metadata: { "general.description": "Synthetic topic-clustered test model for cortexd tests; not for real use." },
  });
}

/**
 * Return the path of the cached tiny test model in `dir` (default
 * os.tmpdir()/cortexd-test-models), writing it first if needed. Concurrent callers
 * each write to a temp file and rename, so a reader never sees a partial file.
 */
export async function ensureTinyTestModel(dir: string = path.join(os.tmpdir(), "cortexd-test-models")): Promise<string> {
  const filePath = path.join(dir, TINY_MODEL_FILE);
  const existing = await stat(filePath).catch(() => undefined);
  if (existing?.isFile() && existing.size > 0) return filePath;
  await mkdir(dir, { recursive: true });
  await writeTinyTestModel(filePath);
  return filePath;
}
