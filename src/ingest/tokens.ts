/**
 * Cheap, CJK-aware token estimate used for chunk budgeting.
 *
 * - Latin and other scripts: about 4 characters per token (a word's characters
 *   plus one separator), but never fewer tokens than words, so runs of short
 *   words are not under-counted. Extra whitespace (indentation) is free.
 * - Each CJK ideograph, kana, hangul syllable or CJK punctuation mark: 1 token.
 *
 * The estimate never grows when text is cut at whitespace: count(a + " " + b) ≤
 * count(a) + count(b), so summing the counts of parts bounds the count of the whole.
 */
export function countTokens(text: string): number {
  return countTokensRange(text, 0, text.length);
}

/**
 * countTokens(text.slice(start, end)) without slicing: one pass over char codes with a
 * table lookup, no regex and no allocation (scanning a big string by ranges is much faster
 * than scanning many small sliced strings).
 */
export function countTokensRange(text: string, start: number, end: number): number {
  let cjk = 0;
  let chars = 0;
  let words = 0;
  let inWord = false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    const cls = c < 0x80 ? (c <= 0x20 || c === 0x7f ? SPACE : WORD) : CLASS[c]!;
    if (cls === WORD) {
      chars++;
      if (!inWord) {
        words++;
        inWord = true;
      }
    } else if (cls === SPACE) {
      inWord = false;
    } else if (cls === CJK) {
      cjk++;
      inWord = false;
    } else {
      // High surrogate of the CJK extension planes (U+20000..U+3FFFF): one ideograph.
      const lo = i + 1 < end ? text.charCodeAt(i + 1) : 0;
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        cjk++;
        i++;
        inWord = false;
      } else {
        chars++;
        if (!inWord) {
          words++;
          inWord = true;
        }
      }
    }
  }
  if (words === 0) return cjk;
  return cjk + Math.max(words, Math.ceil((chars + words) / 4));
}

const WORD = 0;
const SPACE = 1;
const CJK = 2;
const CJK_HIGH_SURROGATE = 3;

/** Character class of every UTF-16 code unit. */
const CLASS: Uint8Array = buildClasses();

function buildClasses(): Uint8Array {
  const t = new Uint8Array(0x10000); // WORD = 0
  const set = (from: number, to: number, cls: number): void => {
    t.fill(cls, from, to + 1);
  };
  set(0x00, 0x20, SPACE);
  set(0x7f, 0x7f, SPACE);
  for (const c of [0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff]) set(c, c, SPACE);
  set(0x2000, 0x200b, SPACE);
  set(0x4e00, 0x9fff, CJK); // CJK unified ideographs
  set(0x3400, 0x4dbf, CJK); // extension A
  set(0xac00, 0xd7af, CJK); // hangul syllables
  set(0x3040, 0x30ff, CJK); // hiragana, katakana
  set(0x3001, 0x303f, CJK); // CJK symbols and punctuation
  set(0x1100, 0x11ff, CJK); // hangul jamo
  set(0x3130, 0x318f, CJK); // hangul compatibility jamo
  set(0x31f0, 0x31ff, CJK); // katakana phonetic extensions
  set(0xf900, 0xfaff, CJK); // compatibility ideographs
  set(0xff01, 0xff9f, CJK); // fullwidth forms, halfwidth katakana
  set(0xd840, 0xd8bf, CJK_HIGH_SURROGATE);
  return t;
}

/**
 * Cuts `text` into consecutive pieces of at most `maxTokens` tokens each (as counted by
 * countTokens); the pieces concatenate back to `text`. Cuts prefer whitespace in the last
 * fifth of a piece and never separate a surrogate pair. Linear in the length of `text`.
 */
export function sliceByTokens(text: string, maxTokens: number): string[] {
  const max = Math.max(1, Math.floor(maxTokens));
  const out: string[] = [];
  let pos = 0;
  while (pos < text.length) {
    let len = Math.min(text.length - pos, max * 4);
    // Shrink until the piece fits; each round is O(len) and len shrinks geometrically.
    for (;;) {
      const tokens = countTokensRange(text, pos, pos + len);
      if (tokens <= max || len <= 1) break;
      len = Math.max(1, Math.min(len - 1, Math.floor((len * max) / tokens)));
    }
    let end = pos + len;
    if (end < text.length) {
      const space = lastSpace(text, end, pos + Math.ceil(len * 0.8));
      if (space > pos) end = space;
      const before = text.charCodeAt(end - 1);
      if (before >= 0xd800 && before <= 0xdbff && end - 1 > pos) end--;
    }
    out.push(text.slice(pos, end));
    pos = end;
  }
  return out;
}

/** Index just after the last space/tab in [from, end), or -1. */
function lastSpace(text: string, end: number, from: number): number {
  for (let i = end - 1; i >= from; i--) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09) return i + 1;
  }
  return -1;
}
