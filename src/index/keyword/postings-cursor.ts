import { blockOf, decodeBlock, MAX_BLOCK, type Postings } from "./postings-blocks.js";

/** The id of an exhausted cursor (above every chunk id). */
export const END = 0x7fffffff;

/**
 * A reader of one token's compressed postings (postings-blocks), one block decoded at a time:
 * `id` / `tf` are the current posting (END when done), `block` the block it sits in. A seek past
 * the current block finds its block from the blocks' last ids without decoding the ones between.
 */
export class PostingsCursor {
  readonly ids = new Int32Array(MAX_BLOCK);
  readonly tfs = new Uint16Array(MAX_BLOCK);
  block = -1;
  id = END;
  tf = 0;
  private i = 0;
  private len = 0;

  constructor(readonly list: Postings) {
    this.load(0);
  }

  /** Moves to the start of block `b` (END past the last). */
  load(b: number): void {
    this.block = b;
    this.i = 0;
    if (b >= this.list.blocks) {
      this.len = 0;
      this.id = END;
      this.tf = 0;
      return;
    }
    this.len = decodeBlock(this.list, b, this.ids, this.tfs);
    this.id = this.ids[0]!;
    this.tf = this.tfs[0]!;
  }

  next(): void {
    if (++this.i < this.len) {
      this.id = this.ids[this.i]!;
      this.tf = this.tfs[this.i]!;
    } else this.load(this.block + 1);
  }

  /** Moves to the first posting whose id is ≥ `target` (never backwards). */
  seek(target: number): void {
    if (this.id >= target) return;
    if (this.list.lasts[this.block]! < target) {
      this.load(blockOf(this.list, target, this.block + 1));
      if (this.id >= target) return;
    }
    // The block's last id is ≥ target: the posting is in it.
    let j = this.i + 1;
    while (this.ids[j]! < target) j++;
    this.i = j;
    this.id = this.ids[j]!;
    this.tf = this.tfs[j]!;
  }
}
