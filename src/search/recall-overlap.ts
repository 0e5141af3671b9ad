/**
 * The near-duplicate test among the memories one recall packs: a memory is left out when its word
 * overlap |A∩B| / min(|A|,|B|) with one already packed is at least the threshold (words as
 * memory-files/dedupe.ts wordSet reads them: lowercased runs of letters and digits). One map from
 * word to the packed memories holding it serves every test, so a memory's words are looked up
 * once instead of once per memory packed before it, and no set is built per memory.
 */
const WORDS = /[\p{L}\p{N}]+/gu;

interface WordEntry {
  /** Indices of the packed memories holding the word. */
  holders: number[];
  /** The last candidate that held it (counts each word once per candidate). */
  seen: number;
}

export class PackedWords {
  private readonly entries = new Map<string, WordEntry>();
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
    const distinct: WordEntry[] = [];
    for (const w of text.toLowerCase().match(WORDS) ?? []) {
      let e = this.entries.get(w);
      if (!e) this.entries.set(w, (e = { holders: [], seen: 0 }));
      if (e.seen === stamp) continue;
      e.seen = stamp;
      distinct.push(e);
    }
    const n = distinct.length;
    const shared = new Array<number>(this.sizes.length).fill(0);
    for (const e of distinct) for (const k of e.holders) shared[k]!++;
    const repeats = n > 0 && this.sizes.some((size, k) => size > 0 && shared[k]! / Math.min(size, n) >= this.threshold);
    return {
      repeats,
      keep: () => {
        const k = this.sizes.length;
        this.sizes.push(n);
        for (const e of distinct) e.holders.push(k);
      },
    };
  }
}
