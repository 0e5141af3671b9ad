import type { TextTokens } from "./fts-tokens.js";
import type { InsertLog } from "./postings-inserts.js";
import { blockOf, emptyPostings, insertPosting, removePosting, type Postings } from "./postings-blocks.js";
import { boundsAfterInsert, boundsAfterRemove } from "./postings-bounds.js";

/** A chunk write the postings in memory take in (`text`: what FTS5 was given). */
export type Change = { kind: "insert" | "delete"; id: number; text: string };

/** The largest term frequency a posting holds (a chunk with more of one token is not served from memory). */
export const MAX_TF = 0xffff;

/** What applying writes changes of the postings in memory (keyword-postings' PostingsData). */
interface Patchable {
  lists: Map<string, Postings>;
  lengths: Int32Array;
  rows: number;
  tokens: number;
  version: number;
  inserts: InsertLog;
}

/** Applies chunk writes in order, with their texts' tokens as FTS5 made them (one entry per change). */
export function applyChanges(data: Patchable, changes: readonly Change[], tokens: readonly TextTokens[]): void {
  data.version++;
  changes.forEach((c, i) => {
    const { tf, length } = tokens[i]!;
    if (c.kind === "insert") {
      if (c.id >= data.lengths.length) {
        const grown = new Int32Array(Math.max(c.id + 1, Math.ceil(data.lengths.length * 1.5)));
        grown.set(data.lengths);
        data.lengths = grown;
      }
      data.lengths[c.id] = length;
      data.inserts.record(c.id, data.version);
      data.rows++;
      data.tokens += length;
      for (const [term, count] of tf) {
        if (count > MAX_TF) throw new Error(`a chunk holds "${term}" more than ${MAX_TF} times`);
        let list = data.lists.get(term);
        if (!list) data.lists.set(term, (list = emptyPostings()));
        const [at, blocks] = [blockOf(list, c.id), list.blocks];
        insertPosting(list, c.id, count);
        boundsAfterInsert(list, at, blocks, count, length);
      }
    } else {
      if (c.id < data.lengths.length) data.lengths[c.id] = 0;
      data.rows--;
      data.tokens -= length;
      for (const term of tf.keys()) {
        const list = data.lists.get(term);
        if (!list) continue;
        const [at, blocks] = [blockOf(list, c.id), list.blocks];
        if (!removePosting(list, c.id)) continue;
        boundsAfterRemove(list, at, blocks);
        if (list.n === 0) data.lists.delete(term);
      }
    }
  });
}
