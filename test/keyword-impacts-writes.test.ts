import { appendFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { IndexStore } from "../src/index/repos/store.js";
import type { Indexer } from "../src/indexer/sync.js";
import { buildKeywordQuery } from "../src/search/keyword/query.js";
import { impactTopK, keptSet, type ImpactPlan } from "../src/index/keyword/postings-impacts.js";
import { ImpactWarmer } from "../src/index/keyword/postings-impacts-warm.js";
import { maxScoreTopK } from "../src/index/keyword/postings-maxscore.js";
import { lengthNorms, postingsTopK, type TopKTrace } from "../src/index/keyword/postings-topk.js";
import { mulberry32 } from "../src/util/prng.js";
import { rawDb } from "./helpers/raw-db.js";
import { indexedWorkspace } from "./helpers/workspace.js";

/**
 * The top chunks of common words (postings-impacts) are kept across writes, as an agent appends to
 * its daily log every turn: a set built before a write still serves after it — chunks inserted
 * since (at new ids, or at an id SQLite hands out again after the last chunk was deleted) are
 * scored too, deleted ones drop out, and the floor is recomputed for today's mean length — and the
 * answer is still FTS5's bm25() top k, to the bit. A query whose bound fails falls back to MaxScore,
 * with the same answer.
 */

const STOP = "the a and with for on in after before we they was is of to".split(" ");
const TOPIC = Array.from({ length: 300 }, (_, i) => `w${i.toString(36)}x`);
/** Sets of 48 chunks in lists of ≥ 150: this index's scale of the daemon's plan. */
const PLAN: ImpactPlan = { longList: 150, top: 48, flooredTop: 160, flooredOnly: false };

function paragraph(r: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++)
    out.push(r() < 0.5 ? STOP[Math.floor(r() * STOP.length)]! : TOPIC[Math.floor(TOPIC.length * r() ** 3)]!);
  return out.join(" ") + ".";
}

let store: IndexStore;
let indexer: Indexer;
let root: string;

beforeAll(async () => {
  const r = mulberry32(21);
  const files: Record<string, string> = {};
  for (let f = 0; f < 300; f++)
    files[`memory/notes/n${f}.md`] =
      `# Note\n\n${Array.from({ length: 4 }, () => paragraph(r, 3 + Math.floor(r() * r() * 80))).join("\n\n")}\n`;
  files["memory/2026-03-01.md"] = `# Log\n\n${paragraph(r, 30)}\n`;
  ({ store, indexer, root } = await indexedWorkspace(files, { chunking: { maxTokens: 24, overlapTokens: 0 } }));
  store.keepKeywordsInMemory();
  expect(await store.text.postings.ready()).toBe(true);
}, 120_000);

afterAll(() => store?.close());

const QUERIES = ["the of", "was in of", "the", "we they is", "after the w1x", "w0x w1x", "and w2x with", "to a the"];

/** Every query, k 1 … 120: the leg (sets at this scale) and the set plan itself against FTS5. */
function compareAll(label: string): { proven: number; built: number; boundsBuilt: number } {
  const view = store.keywordPostings()!;
  expect(view).not.toBeNull();
  let [proven, built, boundsBuilt] = [0, 0, 0];
  for (const text of QUERIES)
    for (const k of [1, 10, 40, 120]) {
      const q = buildKeywordQuery(text);
      const tokens = store.phraseTokens(q.terms) as string[];
      const fts5 = store.keywordSearch(q.match!, k);
      // The leg (at this size, its lists are short enough to be scored whole).
      expect(postingsTopK(view, tokens, k, PLAN), `${label}: ${text} (k ${k})`).toEqual(fts5);
      // MaxScore (the leg's for these lists past 32,768 postings), over block bounds kept across writes.
      const traced: TopKTrace = {};
      expect(maxScoreTopK(view, tokens, k, lengthNorms(view), traced), `${label}: ${text} (k ${k}, MaxScore)`).toEqual(
        fts5,
      );
      boundsBuilt += traced.boundsBuilt ?? 0;
      // The sets' plan (the leg's at 1M chunks): FTS5's answer when its bound holds.
      const trace: TopKTrace = {};
      const sets = impactTopK(view, tokens, k, lengthNorms(view), PLAN, trace);
      built += trace.setsBuilt ?? 0;
      if (sets) {
        expect(sets, `${label}: ${text} (k ${k}, sets)`).toEqual(fts5);
        proven++;
      }
    }
  return { proven, built, boundsBuilt };
}

const chunkIds = () => rawDb(store).prepare(`SELECT id FROM chunks`).pluck().all() as number[];

/** Waits until the warmer has nothing left to build. */
async function settled(warmer: ImpactWarmer): Promise<void> {
  while (warmer.busy) await new Promise((r) => setImmediate(r));
}

it("builds the long lists' top chunks in the background, so a common-word query reads no list whole", async () => {
  const view = store.keywordPostings()!;
  const warmer = new ImpactWarmer(() => view, PLAN, 1);
  warmer.kick();
  await settled(warmer);
  expect(warmer.built).toBeGreaterThan(3);
  // In slices (1 ms here), a turn of the event loop between them.
  expect(warmer.slices).toBeGreaterThan(1);
  const first = compareAll("warmed");
  expect(first.built).toBe(0);
  expect(first.proven).toBeGreaterThan(8);
});

it("keeps a long list's top chunks across writes, deletes and reused ids, and stays FTS5's top k", async () => {
  const view = store.keywordPostings()!;
  const theList = view.lists.get("the")!;
  const built = keptSet(view, theList, PLAN.top)!;
  expect(built).not.toBeNull();

  const r = mulberry32(7);
  const log = join(root, "memory/2026-03-01.md");
  const tail = join(root, "memory/notes/tail.md");
  let reused = 0;
  let proven = 0;
  const seen = new Set(chunkIds());
  for (let turn = 0; turn < 12; turn++) {
    // A turn of the agent: a line dense in common words, short (it ranks near the top), appended to
    // its log; or a note written last (its chunk takes the largest id), then deleted, so that the
    // next insert gets that id again from SQLite.
    const line = `the of the was in of the ${turn % 2 ? "the the of" : paragraph(r, 4)}`;
    if (turn % 3 === 0) appendFileSync(log, `\n${line}\n`);
    else if (turn % 3 === 1) writeFileSync(tail, `# Tail\n\n${line}\n`);
    else rmSync(tail);
    if (turn === 4) rmSync(join(root, "memory/notes/n3.md")); // a delete
    if (turn === 7) writeFileSync(join(root, "memory/notes/n9.md"), `# Note\n\nthe of was in the of the is we they.\n`);
    const before = new Set(chunkIds());
    await indexer.sync();
    const ids = chunkIds();
    reused += ids.filter((id) => !before.has(id) && seen.has(id)).length;
    for (const id of ids) seen.add(id);
    const { proven: p, built: b, boundsBuilt } = compareAll(`turn ${turn}`);
    proven += p;
    // No query after the write had to read a list whole: the sets and block bounds built before it still serve.
    expect(b, `turn ${turn}: sets built by queries`).toBe(0);
    expect(boundsBuilt, `turn ${turn}: block bounds built by queries`).toBe(0);
  }
  expect(proven).toBeGreaterThan(12 * 8);
  // Some turns handed out an id again (the sets' mark could not have been a watermark of ids).
  expect(reused).toBeGreaterThan(0);
  // The set built before the writes still served after them (not read again from the list).
  const now = store.keywordPostings()!;
  expect(now.version).toBeGreaterThan(built.version);
  expect(keptSet(now, now.lists.get("the")!, PLAN.top)).toBe(built);
}, 120_000);

it("falls back to MaxScore when the sets cannot prove the top k, with FTS5's answer", () => {
  const view = store.keywordPostings()!;
  const tiny: ImpactPlan = { longList: 150, top: 2, flooredTop: 2, flooredOnly: false };
  let fellBack = 0;
  for (const text of QUERIES) {
    const q = buildKeywordQuery(text);
    const tokens = store.phraseTokens(q.terms) as string[];
    for (const k of [10, 40]) {
      if (impactTopK(view, tokens, k, lengthNorms(view), tiny) === null) fellBack++;
      expect(postingsTopK(view, tokens, k, tiny), `${text} (k ${k})`).toEqual(store.keywordSearch(q.match!, k));
    }
  }
  expect(fellBack).toBeGreaterThan(4);
});
