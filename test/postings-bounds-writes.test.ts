import { expect, it } from "vitest";
import { K1 } from "../src/index/keyword/bm25.js";
import type { PostingsView } from "../src/index/keyword/keyword-postings.js";
import { applyChanges, type Change } from "../src/index/keyword/postings-apply.js";
import { decodeBlock, MAX_BLOCK, type Postings } from "../src/index/keyword/postings-blocks.js";
import { blockBounds } from "../src/index/keyword/postings-bounds.js";
import { InsertLog } from "../src/index/keyword/postings-inserts.js";
import { lengthNorms } from "../src/index/keyword/postings-topk.js";
import type { TextTokens } from "../src/index/keyword/fts-tokens.js";
import { mulberry32 } from "../src/util/prng.js";

/**
 * MaxScore's block bounds are kept across writes and patched by them (inserts at new ids, in the
 * middle of lists and at ids given out again, deletes that empty blocks, blocks split by inserts,
 * a mean length that moves both ways): after each write, every kept bound is still at least the
 * largest part of its block at today's mean length — what MaxScore's pruning needs to stay exact.
 */
it("keeps every block bound an upper bound of its block through inserts, splits, deletes and a moving mean", () => {
  const r = mulberry32(5);
  const view: PostingsView & { lists: Map<string, Postings> } = {
    lists: new Map(),
    lengths: new Int32Array(16),
    rows: 0,
    tokens: 0,
    version: 0,
    inserts: new InsertLog(),
    bytes: 0,
    ln: Math.log,
  };
  const live = new Map<number, TextTokens>();
  const doc = (): TextTokens => {
    const tf = new Map<string, number>();
    const words = 2 + Math.floor(r() * r() * 120);
    for (let i = 0; i < words; i++) {
      const w = r() < 0.6 ? "the" : r() < 0.5 ? "of" : `t${Math.floor(r() * 8)}`;
      tf.set(w, (tf.get(w) ?? 0) + 1);
    }
    return { tf, length: words };
  };
  const write = (c: Change, t: TextTokens) => {
    applyChanges(view as never, [c], [t]);
    if (c.kind === "insert") live.set(c.id, t);
    else live.delete(c.id);
  };
  // Every fourth id, so later inserts land in the middle of blocks (and split them).
  for (let id = 0; id < 12_000; id += 4) write({ kind: "insert", id, text: "" }, doc());
  const check = (label: string) => {
    const norm = lengthNorms(view);
    for (const [token, list] of view.lists) {
      const bounds = blockBounds(view, list, norm, trace);
      expect(bounds.length, `${label}: ${token}`).toBe(list.blocks);
      const ids = new Int32Array(MAX_BLOCK);
      const tfs = new Uint16Array(MAX_BLOCK);
      for (let b = 0; b < list.blocks; b++) {
        const n = decodeBlock(list, b, ids, tfs);
        for (let j = 0; j < n; j++) {
          const part = (tfs[j]! * (K1 + 1.0)) / (tfs[j]! + norm[ids[j]!]!);
          if (!(part <= bounds[b]!)) expect.fail(`${label}: ${token} block ${b}: part ${part} > bound ${bounds[b]}`);
        }
      }
    }
  };
  const trace: { boundsBuilt?: number } = {};
  let end = 12_000;
  check("loaded");
  const loaded = trace.boundsBuilt!;
  let checks = 0;
  for (let step = 0; step < 3000; step++) {
    const x = r();
    if (x < 0.35 || (step < 1000 && x < 0.7)) {
      // Into a gap (middle of a block: at first, many into a few blocks, which split), or at the end;
      // long chunks at first, short ones later (the mean moves).
      const id =
        x < 0.25 || step < 1000 ? 1 + Math.floor(r() * (step < 1000 ? 800 : 12_000)) : (end += 1 + Math.floor(r() * 3));
      const t = doc();
      if (step > 1500) t.length = Math.max(1, t.length >> 2);
      if (live.has(id)) write({ kind: "delete", id, text: "" }, live.get(id)!);
      write({ kind: "insert", id, text: "" }, t);
    } else if (x < 0.7) {
      // A delete, in runs of neighbours now and then (blocks empty and are dropped).
      const ids = [...live.keys()];
      const from = ids[Math.floor(r() * ids.length)]!;
      for (let id = from; id < from + (r() < 0.1 ? 300 : 1); id++)
        if (live.has(id)) write({ kind: "delete", id, text: "" }, live.get(id)!);
    } else {
      // A long chunk dense in a word at an id given out again.
      const id = Math.max(...live.keys());
      write({ kind: "delete", id, text: "" }, live.get(id)!);
      write(
        { kind: "insert", id, text: "" },
        {
          tf: new Map([
            ["the", 40],
            ["t1", 3],
          ]),
          length: 43 + Math.floor(r() * 300),
        },
      );
    }
    if (step % 2 === 0) {
      check(`step ${step}`);
      checks += view.lists.size;
    }
  }
  check("end");
  // The bounds were patched, not computed again after every write (only when the mean drifted).
  expect(trace.boundsBuilt! - loaded).toBeLessThan(checks / 4);
});
