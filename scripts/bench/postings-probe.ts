import { readdirSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../../src/index/db.js";
import { IndexStore } from "../../src/index/store.js";
import { buildKeywordQuery } from "../../src/search/keyword/query.js";
import { rankKeywords } from "../../src/search/keyword/strategy.js";
import { mulberry32 } from "../../src/util/prng.js";
import { fmtMs, median, percentile, type Args } from "./util.js";

const ms = (x: number) => `${x.toFixed(3)} ms`;

/**
 * The keyword leg from the postings in memory (what the daemon does) against the SQL path (FTS5
 * bm25 and the large-index plans, what a one-shot process does) on a built index: the postings'
 * load time and size, each path's latency on the same random queries (interleaved), and how often
 * their top k differ. Queries: 2–4 words drawn from random chunks' text (common words included).
 */
export async function postingsProbe(args: Args): Promise<void> {
  const dir = String(args.flags.index ?? "");
  if (!dir) throw new Error("--index <directory holding the index .sqlite> is required");
  const file = readdirSync(dir).find((f) => f.endsWith(".sqlite"));
  if (!file) throw new Error(`no index in ${dir}`);
  const n = Number(args.flags.queries ?? 300);
  const k = Number(args.flags.k ?? 40);
  const memory = new IndexStore(openDatabase(join(dir, file), { readonly: true }), "probe");
  const sql = new IndexStore(openDatabase(join(dir, file), { readonly: true }), "probe");
  try {
    const before = process.memoryUsage();
    const t0 = performance.now();
    memory.keepKeywordsInMemory();
    if (!(await memory.text.postings.ready()))
      throw new Error(`postings did not load: ${memory.text.postings.lastError}`);
    const loadMs = performance.now() - t0;
    const after = process.memoryUsage();
    const view = memory.keywordPostings()!;
    let bytes = view.lengths.byteLength;
    let postings = 0;
    for (const l of view.lists.values()) {
      bytes += l.ids.byteLength + l.tfs.byteLength;
      postings += l.n;
    }
    console.log(
      `  postings (${view.rows} chunks, ${view.lists.size} tokens, ${postings} postings): loaded in ${fmtMs(loadMs)}; ` +
        `typed arrays ${(bytes / 1e6).toFixed(1)} MB, heap +${((after.heapUsed - before.heapUsed) / 1e6).toFixed(1)} MB, ` +
        `array buffers +${((after.arrayBuffers - before.arrayBuffers) / 1e6).toFixed(1)} MB`,
    );

    const r = mulberry32(Number(args.flags.seed ?? 7));
    const maxId = view.lengths.length - 1;
    const queries: string[] = [];
    while (queries.length < n) {
      const id = 1 + Math.floor(r() * maxId);
      const text = memory.chunkTexts([id]).get(id);
      if (!text) continue;
      const words = text.toLowerCase().match(/[a-z]{2,}/g) ?? [];
      if (words.length < 4) continue;
      const m = 2 + Math.floor(r() * 3);
      queries.push(Array.from({ length: m }, () => words[Math.floor(r() * words.length)]!).join(" "));
    }
    const lat = { memory: [] as number[], sql: [] as number[] };
    let differ = 0;
    let served = 0;
    for (const [i, query] of queries.entries()) {
      const q = buildKeywordQuery(query);
      if (!q.match) continue;
      const run = (store: IndexStore, into: number[]) => {
        const t = performance.now();
        const hits = rankKeywords(store, q, k).hits;
        into.push(performance.now() - t);
        return hits;
      };
      // Interleaved, alternating which goes first, so drift and caches cancel.
      const a = i % 2 ? run(memory, lat.memory) : null;
      const b = run(sql, lat.sql);
      const m = a ?? run(memory, lat.memory);
      const exact = sql.keywordSearch(q.match, k);
      if (JSON.stringify(m) !== JSON.stringify(exact)) differ++;
      if (memory.keywordPostings()) served++;
      void b;
    }
    console.log(
      `  keyword leg (k ${k}, ${lat.memory.length} queries): postings p50 ${ms(median(lat.memory))}, p95 ${ms(percentile(lat.memory, 95))}; ` +
        `SQL path p50 ${ms(median(lat.sql))}, p95 ${ms(percentile(lat.sql, 95))}; ` +
        `top k unlike FTS5 bm25's: ${differ}; postings ready for ${served}`,
    );
  } finally {
    memory.close();
    sql.close();
  }
}
