/**
 * The near-duplicate test among the memories one recall packs: a memory B is left out when most of
 * its own words were said by one memory A already packed, |A∩B| / |B| at least the threshold
 * (words as memory-files/dedupe.ts wordSet reads them: lowercased runs of letters and digits). A
 * memory that restates a packed one and says more — "moved the staging database to db-stage-05"
 * after "the staging database lives on db-stage-02" — is kept: its new words are what changed.
 * One table from word to the packed memories holding it serves every test, so a memory's words
 * are looked up once instead of once per memory packed before it, and no set is built per memory.
 *
 * The words are found by char codes (word-chars.ts, as the expression finds them) and looked up by
 * a hash of their UTF-16 units computed while scanning, compared unit by unit with the word stored
 * for the slot: no string is cut out of the text but a word's first occurrence.
 */
import { ASCII_WORD, FNV_OFFSET, FNV_PRIME, wordUnitsAt } from "../util/word-chars.js";

// Kept after an A/B (#36): recall's pack stage median 3.0 ms with this table, 5.2 ms with plain word sets (peers bench, loaded box).
export class PackedWords {
  /** Open addressing: entry index + 1 per slot (0: empty); capacity a power of two, at most half full. */
  private slots = new Int32Array(1024);
  /** Per entry: the word, its hash, the last candidate that held it, the packed memories holding it. */
  private readonly words: string[] = [];
  private readonly hashes: number[] = [];
  private readonly seen: number[] = [];
  private readonly holders: number[][] = [];
  /** Distinct words of each packed memory. */
  private readonly sizes: number[] = [];
  private candidate = 0;

  constructor(private readonly threshold: number) {}

  /**
   * The distinct words of a candidate's text and whether it repeats a packed memory; keep() adds
   * it to the packed ones.
   */
  test(text: string): { repeats: boolean; keep: () => void } {
    const stamp = ++this.candidate;
    const distinct: number[] = [];
    const lower = text.toLowerCase();
    const len = lower.length;
    // Each word hashed as it is read (its UTF-16 units), then looked up.
    for (let i = 0; i < len;) {
      let c = lower.charCodeAt(i);
      let units = c < 0x80 ? ASCII_WORD[c]! : wordUnitsAt(lower, i);
      if (units === 0) {
        i++;
        continue;
      }
      const at = i;
      let h = FNV_OFFSET;
      do {
        h = Math.imul(h ^ c, FNV_PRIME);
        if (units === 2) h = Math.imul(h ^ lower.charCodeAt(i + 1), FNV_PRIME);
        i += units;
        if (i >= len) break;
        c = lower.charCodeAt(i);
        units = c < 0x80 ? ASCII_WORD[c]! : wordUnitsAt(lower, i);
      } while (units !== 0);
      const e = this.entryOf(lower, at, i, h);
      if (this.seen[e] === stamp) continue;
      this.seen[e] = stamp;
      distinct.push(e);
    }
    const n = distinct.length;
    const shared = new Array<number>(this.sizes.length).fill(0);
    for (const e of distinct) for (const k of this.holders[e]!) shared[k]!++;
    const repeats = n > 0 && this.sizes.some((size, k) => size > 0 && shared[k]! / n >= this.threshold);
    return {
      repeats,
      keep: () => {
        const k = this.sizes.length;
        this.sizes.push(n);
        for (const e of distinct) this.holders[e]!.push(k);
      },
    };
  }

  /** The entry of the word lower[at, end) of hash h, added when new. */
  private entryOf(lower: string, at: number, end: number, h: number): number {
    const mask = this.slots.length - 1;
    const len = end - at;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const slot = this.slots[s]!;
      if (slot === 0) break;
      const e = slot - 1;
      if (this.hashes[e] === h && sameWord(this.words[e]!, lower, at, len)) return e;
    }
    const e = this.words.length;
    this.words.push(lower.slice(at, end));
    this.hashes.push(h);
    this.seen.push(0);
    this.holders.push([]);
    if (2 * (e + 1) > this.slots.length) this.grow();
    else this.place(e);
    return e;
  }

  private place(e: number): void {
    const mask = this.slots.length - 1;
    let s = this.hashes[e]! & mask;
    while (this.slots[s] !== 0) s = (s + 1) & mask;
    this.slots[s] = e + 1;
  }

  private grow(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    for (let e = 0; e < this.words.length; e++) this.place(e);
  }
}

function sameWord(word: string, s: string, at: number, len: number): boolean {
  if (word.length !== len) return false;
  for (let i = 0; i < len; i++) if (word.charCodeAt(i) !== s.charCodeAt(at + i)) return false;
  return true;
}
