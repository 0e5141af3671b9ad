import { readdirSync } from "node:fs";
import { join } from "node:path";
import { SearchSchema } from "../../src/config/schema.js";
import { openDatabase } from "../../src/index/db.js";
import { IndexStore } from "../../src/index/store.js";
import { Searcher } from "../../src/search/searcher.js";
import { rng, sampleQuery } from "./generate.js";
import { fmtMs, median, percentile, type Args } from "./util.js";

export interface KeywordProbe {
  chunks: number;
  budgeted: { p50: number; p95: number };
  exact: { p50: number; p95: number };
  /** Mean share of the exact ranking's top 10 that the budgeted ranking also returns. */
  overlapAt10: number;
}

/**
 * Keyword-only search in-process on a built index, with the postings budget (what the daemon
 * does) and without it (FTS5 bm25 over every word): latency of each and the overlap of their top 10.
 */
export async function keywordProbe(indexDir: string, queries: string[]): Promise<KeywordProbe> {
  const file = readdirSync(indexDir).find((f) => f.endsWith(".sqlite"));
  if (!file) throw new Error(`no index in ${indexDir}`);
  const store = new IndexStore(openDatabase(join(indexDir, file), { readonly: true }), "probe");
  try {
    const config = { ...SearchSchema.parse({}), maxResults: 10 };
    const budgeted = new Searcher({ store, provider: null, config });
    const exact = new Searcher({ store, provider: null, config, keywordBudget: Infinity });
    const lat = { budgeted: [] as number[], exact: [] as number[] };
    let overlap = 0;
    for (const q of queries.slice(0, 10)) await budgeted.search({ query: q }); // warm-up
    for (const q of queries) {
      let t = performance.now();
      const a = await budgeted.search({ query: q });
      lat.budgeted.push(performance.now() - t);
      t = performance.now();
      const b = await exact.search({ query: q });
      lat.exact.push(performance.now() - t);
      const key = (h: { path: string; startLine: number }) => `${h.path}:${h.startLine}`;
      const got = new Set(a.results.map(key));
      overlap += b.results.length ? b.results.filter((h) => got.has(key(h))).length / b.results.length : 1;
    }
    const out: KeywordProbe = {
      chunks: store.ftsTotals().rows,
      budgeted: { p50: median(lat.budgeted), p95: percentile(lat.budgeted, 95) },
      exact: { p50: median(lat.exact), p95: percentile(lat.exact, 95) },
      overlapAt10: overlap / queries.length,
    };
    console.log(
      `  keyword search in-process (${out.chunks} chunks): budgeted p50 ${fmtMs(out.budgeted.p50)}, p95 ${fmtMs(out.budgeted.p95)}; ` +
        `exact FTS5 bm25 p50 ${fmtMs(out.exact.p50)}, p95 ${fmtMs(out.exact.p95)}; top-10 overlap ${out.overlapAt10.toFixed(3)} (${queries.length} queries)`,
    );
    return out;
  } finally {
    store.close();
  }
}

/** `npm run bench -- keywords --index <dir with the .sqlite>`: the probe alone on an existing index. */
export async function benchKeywords(args: Args): Promise<void> {
  const dir = String(args.flags.index ?? "");
  if (!dir) throw new Error("--index <directory holding the index .sqlite> is required (e.g. .bench/home-scale-10000-keyword/data/cortexd/indexes)");
  const r = rng(2024);
  await keywordProbe(dir, Array.from({ length: Number(args.flags.queries ?? 200) }, () => sampleQuery(r)));
}
