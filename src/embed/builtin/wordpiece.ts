/**
 * llama.cpp's WordPiece tokenizer (llm_tokenizer_wpm_session), reproduced for the static-bert
 * provider: the pre-tokeniser (normalise, split into words) and the greedy longest-match split.
 */

const WORD_PREFIX = "\u2581";

/** llama.cpp's whitespace set (unicode-data.cpp unicode_set_whitespace), not JS \s (which adds U+FEFF). */
const WHITESPACE = new Set<number>([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
  0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);
const RE_CONTROL = /^[\p{Cc}\p{Cf}\p{Co}\p{Cs}]$/u; // llama.cpp's CONTROL flag: categories Cc Cf Co Cs (not Cn)
const RE_MARK = /^\p{M}$/u;
const RE_PUNCT = /^\p{P}$/u;
const RE_SYMBOL = /^\p{S}$/u;

function isChineseChar(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b920 && cp <= 0x2ceaf) || // sic, as in llama.cpp / HF
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}

const enum Kind {
  Skip = 0,
  Space = 1,
  /** A word of its own (punctuation, ASCII symbol, CJK ideograph). */
  Single = 2,
  Append = 3,
}

/** Classification of one input code point: what to do with it and the text it contributes. */
type CharClass = readonly [Kind, string];

export interface WordPieceOptions {
  lowercase: boolean;
  stripAccents: boolean;
}

/** llama.cpp's WordPiece pre-tokeniser (normalise + split into words), code point by code point. */
export class WordPiecePreTokenizer {
  private readonly ascii: CharClass[] = [];
  private readonly cache = new Map<number, CharClass>();

  constructor(readonly opts: WordPieceOptions) {
    for (let c = 0; c < 128; c++) this.ascii.push(this.classify(c));
  }

  private classify(cp0: number): CharClass {
    if (cp0 >= 0xd800 && cp0 <= 0xdfff) return [Kind.Skip, ""]; // lone surrogate: U+FFFD once UTF-8 encoded
    let cp = cp0;
    if (this.opts.stripAccents && cp >= 0x80) cp = String.fromCodePoint(cp).normalize("NFD").codePointAt(0)!;
    if (WHITESPACE.has(cp)) return [Kind.Space, ""];
    const ch = String.fromCodePoint(cp);
    if (cp === 0 || cp === 0xfffd || RE_CONTROL.test(ch)) return [Kind.Skip, ""];
    if (this.opts.stripAccents && RE_MARK.test(ch)) return [Kind.Skip, ""];
    let s = ch;
    if (this.opts.lowercase) {
      // unicode_tolower is a simple (1:1) mapping; JS's full mapping differs only for U+0130 → "i̇".
      const lower = ch.toLowerCase();
      s = String.fromCodePoint(lower.codePointAt(0)!);
    }
    if (RE_PUNCT.test(ch) || (cp < 0x7f && RE_SYMBOL.test(ch)) || isChineseChar(cp)) return [Kind.Single, s];
    return [Kind.Append, s];
  }

  private classOf(cp: number): CharClass {
    if (cp < 128) return this.ascii[cp]!;
    let c = this.cache.get(cp);
    if (c === undefined) {
      if (this.cache.size > 50_000) this.cache.clear();
      c = this.classify(cp);
      this.cache.set(cp, c);
    }
    return c;
  }

  /** The words llama.cpp's WordPiece tokenizer would match, in order. */
  words(text: string): string[] {
    const words: string[] = [];
    let cur = "";
    const n = text.length;
    for (let i = 0; i < n; i++) {
      let cp = text.charCodeAt(i);
      if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < n) {
        const lo = text.charCodeAt(i + 1);
        if (lo >= 0xdc00 && lo <= 0xdfff) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          i++;
        }
      }
      const [kind, s] = this.classOf(cp);
      switch (kind) {
        case Kind.Skip:
          break;
        case Kind.Space:
          if (cur) {
            words.push(cur);
            cur = "";
          }
          break;
        case Kind.Single:
          if (cur) {
            words.push(cur);
            cur = "";
          }
          words.push(s);
          break;
        case Kind.Append:
          cur += s;
          break;
      }
    }
    if (cur) words.push(cur);
    return words;
  }
}

/** Words whose WordPiece split is remembered (bounded; cleared when full). */
const PIECES_MAX = 50_000;

/** Greedy longest-match WordPiece over a token → id map, as llm_tokenizer_wpm_session::tokenize. */
export class WordPieceTokenizer {
  private readonly maxLen: number;
  private readonly pieces = new Map<string, readonly number[]>();
  readonly pre: WordPiecePreTokenizer;

  constructor(
    private readonly vocab: ReadonlyMap<string, number>,
    private readonly unkId: number,
    opts: WordPieceOptions,
  ) {
    let max = 1;
    for (const t of vocab.keys()) if (t.length > max) max = t.length;
    this.maxLen = max;
    this.pre = new WordPiecePreTokenizer(opts);
  }

  /** Token ids of `text`, without [CLS]/[SEP] (what node-llama-cpp's model.tokenize returns). */
  tokenize(text: string): number[] {
    const out: number[] = [];
    for (const word of this.pre.words(text)) this.word(word, out);
    return out;
  }

  private word(word: string, out: number[]): void {
    const w1 = WORD_PREFIX + word;
    const whole = this.vocab.get(w1);
    if (whole !== undefined) {
      // The first candidate llama.cpp tries is the longest, i.e. the whole word when it is a token.
      out.push(whole);
      return;
    }
    // A word that is not one token costs O(length × longest token) lookups: its pieces are kept
    // (words recur across every text a model embeds, so this is not a cache of queries).
    const known = this.pieces.get(word);
    if (known) {
      for (const id of known) out.push(id);
      return;
    }
    const first = out.length;
    this.split(w1, out);
    if (this.pieces.size >= PIECES_MAX) this.pieces.clear();
    this.pieces.set(word, out.slice(first));
  }

  private split(w1: string, out: number[]): void {
    const start = out.length;
    const n = w1.length;
    for (let i = 0; i < n;) {
      let next = -1;
      for (let j = Math.min(n, i + this.maxLen); j > i; j--) {
        const id = this.vocab.get(w1.slice(i, j));
        if (id !== undefined) {
          out.push(id);
          next = j;
          break;
        }
      }
      if (next < 0) {
        out.length = start; // discard the partial match: the whole word is unknown
        break;
      }
      i = next;
    }
    if (out.length === start) out.push(this.unkId);
  }
}
