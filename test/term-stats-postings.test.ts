import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../src/index/db/db.js";
import { IndexStore } from "../src/index/repos/store.js";
import { Indexer } from "../src/indexer/sync.js";
import { mulberry32 } from "../src/util/prng.js";
import { indexedWorkspace } from "./helpers/workspace.js";

/**
 * The relevance decision's word statistics (store.termStats) read a word's df from the postings in
 * memory when the daemon keeps them: the same stems and df as the SQL path (FTS5 phrase counts,
 * fts5vocab) gives on another connection to the same index, through an edit and a delete.
 */

const VOCAB = [
  ..."meeting meetings project projects budget travel travelling family garden gardening".split(" "),
  ..."run running runs café cafe naïve naive 2024 v2 x1".split(" "),
  ...Array.from({ length: 30 }, (_, i) => `zq${String.fromCharCode(97 + (i % 26))}${i}word`),
];
const GLUE = "the a and with for on in after before we they was is".split(" ");
/** Query words: indexed ones, absent ones, and words FTS5 makes two tokens of (the SQL path counts those). */
const WORDS = [...VOCAB, "absentword", "e-mail", "v2.1", "travelled", "naïvely", "zz"];

function corpus(seed: number, files: number): Record<string, string> {
  const r = mulberry32(seed);
  const out: Record<string, string> = {};
  for (let f = 0; f < files; f++) {
    const words = Array.from({ length: 10 + Math.floor(r() * 60) }, () =>
      r() < 0.4 ? VOCAB[Math.floor(r() * r() * VOCAB.length)]! : GLUE[Math.floor(r() * GLUE.length)]!,
    );
    if (f % 5 === 0) words.push("e-mail");
    out[`memory/notes/n${f}.md`] = `# Note ${f}\n\n${words.join(" ")}.\n`;
  }
  return out;
}

let root: string;
let memory: IndexStore;
let plain: IndexStore;
let indexer: Indexer;

beforeAll(async () => {
  let dbFile: string;
  ({
    root,
    dbPath: dbFile,
    store: memory,
    indexer,
  } = await indexedWorkspace(corpus(11, 150), {
    chunking: { maxTokens: 40, overlapTokens: 0 },
    name: "memory",
  }));
  memory.keepKeywordsInMemory();
  expect(await memory.text.postings.ready()).toBe(true);
  plain = new IndexStore(openDatabase(dbFile), "plain");
});

afterAll(() => {
  memory?.close();
  plain?.close();
});

function expectSameStats(): void {
  expect(memory.keywordPostings()).not.toBeNull();
  const a = memory.termStats(WORDS);
  const b = plain.termStats(WORDS);
  expect(a.chunks).toBe(b.chunks);
  expect(a.stats.map(({ term, stems, df }) => ({ term, stems, df }))).toEqual(
    b.stats.map(({ term, stems, df }) => ({ term, stems, df })),
  );
  // Not all zero: the comparison means something.
  expect(a.stats.filter((s) => s.df > 0).length).toBeGreaterThan(VOCAB.length / 2);
}

describe("word statistics from the postings in memory", () => {
  it("match the SQL path's stems and df", () => {
    expectSameStats();
  });

  it("follow an edit and a delete made through the postings' own connection", async () => {
    writeFileSync(join(root, "memory/notes/n3.md"), "# Note 3\n\nabsentword gardening gardening travel e-mail.\n");
    rmSync(join(root, "memory/notes/n4.md"));
    await indexer.sync();
    expect(memory.termStats(["absentword"]).stats[0]!.df).toBe(1);
    expectSameStats();
  });
});
