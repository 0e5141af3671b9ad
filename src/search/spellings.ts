/**
 * Words as a user types them and the notes do not write them. Letters FTS5 does not fold: unicode61's
 * remove_diacritics takes the accents off letters that decompose ("é", "ü", "å"), but "ø", "æ", "ß",
 * "ł", "đ" are letters of their own, so "tromso" typed on an ASCII keyboard never finds the note
 * about Tromsø, nor "Tromsø" a note that wrote "Tromso". And words typed short ("postgres" for
 * "PostgreSQL"). For the exactness guarantee (exact.ts) and for a prompt word the index lacks
 * (soft-words.ts).
 */

/** Each letter with its usual ASCII spelling (lowercase). */
const ASCII_OF: Readonly<Record<string, string>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, string>, {
    ø: "o",
    æ: "ae",
    œ: "oe",
    ß: "ss",
    ł: "l",
    đ: "d",
    ð: "d",
    þ: "th",
    ı: "i",
  }),
);

const FOLDED = /[øæœßłđðþı]/u;

/** A lowercase word with accents removed and the letters above spelled in ASCII. */
export function foldLetters(word: string): string {
  const bare = word
    .toLowerCase()
    .normalize("NFD")
    .replace(/\p{M}+/gu, "");
  return FOLDED.test(bare) ? [...bare].map((c) => ASCII_OF[c] ?? c).join("") : bare;
}

/** Whether foldLetters changes more than accents: the word holds a letter FTS5 does not fold. */
function hasUnfoldedLetter(word: string): boolean {
  return FOLDED.test(word.toLowerCase());
}

/** Most spellings tried per word (each is one bounded lookup). */
const MAX_SPELLINGS = 16;

/**
 * Other ways a lowercase word may be written in the notes: an ASCII word with one of its letters (or
 * letter pairs) written as one of the letters above ("tromso" → "tromsø", "trømso"; "lodz" → "łodz"),
 * or a word holding such letters written in ASCII ("tromsø" → "tromso"). At most MAX_SPELLINGS.
 */
export function otherSpellings(word: string): string[] {
  const w = word.toLowerCase();
  if (hasUnfoldedLetter(w)) return [foldLetters(w)];
  if (!/^[a-z]+$/.test(w)) return [];
  const out = new Set<string>();
  for (const [letter, ascii] of Object.entries(ASCII_OF))
    for (let at = w.indexOf(ascii); at >= 0; at = w.indexOf(ascii, at + 1))
      out.add(w.slice(0, at) + letter + w.slice(at + ascii.length));
  return [...out].slice(0, MAX_SPELLINGS);
}

/** Letters a word typed short may leave off the word the notes write ("postgres" for "postgresql"). */
const SHORTENED_BY = 4;
/** Letters a word must have to stand for a longer one by its beginning. */
const SHORT_MIN = 6;

/** Whether `short` is a word of at least SHORT_MIN letters that begins `word`, up to SHORTENED_BY letters shorter. */
export function beginsWord(short: string, word: string): boolean {
  return (
    short.length >= SHORT_MIN &&
    word.length > short.length &&
    word.length - short.length <= SHORTENED_BY &&
    word.startsWith(short) &&
    /^\p{L}+$/u.test(word)
  );
}

/** Whether a word may stand for longer ones that it begins (a prefix lookup is worth making). */
export function mayBeShortened(word: string): boolean {
  return word.length >= SHORT_MIN && /^\p{L}+$/u.test(word);
}
