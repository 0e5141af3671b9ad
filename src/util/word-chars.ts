/**
 * What a word is, for search, recall, the save dedupe and consolidation: a maximal run of letters and
 * digits, `[\p{L}\p{N}]+` (Unicode), case-folded by the caller. The one home of this rule: WORDS and
 * lowerWords for the code that reads words with the expression (excerpts, recall's scan and relevance,
 * memory-files/dedupe, consolidate/duplicates), and the same test by char codes for the hot word
 * scanners (MMR's token signatures in stages.ts, recall-scan, recall-overlap): the ASCII letters and
 * digits by a comparison, other code points by the Unicode expression once each (memoised per BMP
 * unit). Also the FNV-1a hash two of them take of a word's UTF-16 units.
 */

/** One word character, as a regular expression class. */
export const WORD_CHAR = "[\\p{L}\\p{N}]";

/** Every word of a text (global: String#match reads them all; exec loops start at lastIndex 0). */
export const WORDS = new RegExp(`${WORD_CHAR}+`, "gu");

/** The words of `text`, lowercased, in text order. */
export function lowerWords(text: string): string[] {
  return text.toLowerCase().match(WORDS) ?? [];
}

/** FNV-1a (32 bit) over a word's UTF-16 units: h = imul(h ^ unit, FNV_PRIME) from FNV_OFFSET. */
export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

const bmpWord = new Uint8Array(0x10000);
const ONE_WORD_CHAR = new RegExp(`^${WORD_CHAR}$`, "u");

/** 1 for the ASCII letters and digits, else 0 (per char code below 128). */
export const ASCII_WORD = new Uint8Array(128);
for (let c = 0; c < 128; c++)
  ASCII_WORD[c] = (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) ? 1 : 0;

/** Whether a code point is a word character (WORD_CHAR). */
export function isWordCp(cp: number): boolean {
  if (cp < 0x80) return (cp >= 0x61 && cp <= 0x7a) || (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a);
  if (cp >= 0x10000) return ONE_WORD_CHAR.test(String.fromCodePoint(cp));
  let v = bmpWord[cp]!;
  if (v === 0) bmpWord[cp] = v = ONE_WORD_CHAR.test(String.fromCharCode(cp)) ? 1 : 2;
  return v === 1;
}

export const isHigh = (c: number): boolean => c >= 0xd800 && c < 0xdc00;
export const isLow = (c: number): boolean => c >= 0xdc00 && c < 0xe000;

/** The code point at `i` (a surrogate pair read whole). */
export function cpAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (isHigh(c) && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (isLow(d)) return (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000;
  }
  return c;
}

/** The UTF-16 units of the word character at `i` (1, or 2 for a surrogate pair), 0 when it is none. */
export function wordUnitsAt(s: string, i: number): number {
  const cp = cpAt(s, i);
  return isWordCp(cp) ? (cp >= 0x10000 ? 2 : 1) : 0;
}
