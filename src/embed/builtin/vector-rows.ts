/** The word vectors kept while scanning, stored in fixed-size blocks and gathered in rank order at the end. */

/** Rows grow in blocks of this many words (so an unknown final count costs no big copies). */
export class RowStore {
  private blocks: Float64Array[] = [];
  private normBlocks: Float64Array[] = [];
  count = 0;
  readonly words: string[] = [];
  readonly ranks: number[] = [];
  constructor(
    private readonly dims: number,
    private readonly blockRows = 8192,
  ) {}
  push(word: string, rank: number, values: Float64Array, norm: number): void {
    const b = Math.floor(this.count / this.blockRows);
    const r = this.count % this.blockRows;
    if (r === 0) {
      this.blocks.push(new Float64Array(this.blockRows * this.dims));
      this.normBlocks.push(new Float64Array(this.blockRows));
    }
    this.blocks[b]!.set(values.subarray(0, this.dims), r * this.dims);
    this.normBlocks[b]![r] = norm;
    this.words.push(word);
    this.ranks.push(rank);
    this.count++;
  }
  /** Rows in the given order (indices into push order), concatenated. */
  gather(order: readonly number[]): { vectors: Float64Array; norms: Float64Array } {
    const vectors = new Float64Array(order.length * this.dims);
    const norms = new Float64Array(order.length);
    order.forEach((src, dst) => {
      const b = this.blocks[Math.floor(src / this.blockRows)]!;
      const r = src % this.blockRows;
      vectors.set(b.subarray(r * this.dims, (r + 1) * this.dims), dst * this.dims);
      norms[dst] = this.normBlocks[Math.floor(src / this.blockRows)]![r]!;
    });
    return { vectors, norms };
  }
}
