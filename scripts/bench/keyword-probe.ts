import { readdirSync } from "node:fs";
import { join } from "node:path";
import { SearchSchema } from "../../src/config/schema.js";
import { openDatabase } from "../../src/index/db.js";
import { IndexStore } from "../../src/index/store.js";
import { Searcher } from "../../src/search/searcher.js";
import { bm25Ranker, planKeyword } from "../../src/search/keyword/budget.js";
import { listTopK } from "../../src/search/keyword/lists.js";
import { buildKeywordQuery } from "../../src/search/keyword/query.js";
import { rng, sampleQuery } from "./generate.js";
import { fmtMs, median, percentile, type Args } from "./util.js";

export interface KeywordProbe {
  chunks: number;
  budgeted: { p50: number; p95: number };
  exact: { p50: number; p95: number };
  /** Mean share of the exact ranking's top 10 that the budgeted ranking also returns. */
  overlapAt10: number;
  /** The keyword leg alone on queries whose plan is not "full": its top 10 against FTS5 bm25's. */
  leg: { queries: number; viaLists: number; provenExact: number; overlapAt10: number };
}

/** The keyword leg's top k through the lists (as the Searcher runs it) and FTS5's exact top k, for a query the budget does not cover. */
function legCompare(
  store: IndexStore,
  query: string,
  k: number,
): { viaLists: boolean; exact: boolean; overlap: number } | null {
  const q = buildKeywordQuery(query);
  if (!q.match) return null;
  const { stats, chunks, avgTokens } = store.termStats(q.terms);
  const plan = planKeyword(stats, chunks);
  if (plan.kind === "full") return null;
  const res = listTopK(store, {
    terms: plan.rescore,
    rare: plan.kind === "rare" ? plan.terms : [],
    chunks,
    k,
    rank: bm25Ranker(plan.rescore, chunks, avgTokens, (tok) => store.stemsOf(tok)),
  });
  const used = planKeyword(stats, chunks, Infinity).terms;
  const truth = store.keywordSearch(buildKeywordQuery(used.join(" "), { keepStopWords: true }).match!, k);
  const got = new Set((res?.hits ?? []).map((h) => h.id));
  return {
    viaLists: !!res,
    exact: !!res?.exact,
    overlap: truth.length ? truth.filter((h) => got.has(h.id)).length / truth.length : 1,
  };
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
    const leg = { queries: 0, viaLists: 0, provenExact: 0, overlapAt10: 0 };
    for (const q of queries) {
      const c = legCompare(store, q, 10);
      if (!c) continue;
      leg.queries++;
      if (c.viaLists) leg.viaLists++;
      if (c.exact) leg.provenExact++;
      leg.overlapAt10 += c.overlap;
    }
    if (leg.queries) leg.overlapAt10 /= leg.queries;
    const out: KeywordProbe = {
      leg,
      chunks: store.ftsTotals().rows,
      budgeted: { p50: median(lat.budgeted), p95: percentile(lat.budgeted, 95) },
      exact: { p50: median(lat.exact), p95: percentile(lat.exact, 95) },
      overlapAt10: overlap / queries.length,
    };
    console.log(
      `  keyword search in-process (${out.chunks} chunks): budgeted p50 ${fmtMs(out.budgeted.p50)}, p95 ${fmtMs(out.budgeted.p95)}; ` +
        `exact FTS5 bm25 p50 ${fmtMs(out.exact.p50)}, p95 ${fmtMs(out.exact.p95)}; top-10 overlap ${out.overlapAt10.toFixed(3)} (${queries.length} queries)`,
    );
    console.log(
      `  keyword leg where the budget applies (${leg.queries} queries): through the lists ${leg.viaLists}, proven exact ${leg.provenExact}; ` +
        `top-10 overlap with FTS5 bm25 ${leg.overlapAt10.toFixed(3)}`,
    );
    return out;
  } finally {
    store.close();
  }
}

/** `npm run bench -- keywords --index <dir with the .sqlite>`: the probe alone on an existing index. */
export async function benchKeywords(args: Args): Promise<void> {
  const dir = String(args.flags.index ?? "");
  if (!dir)
    throw new Error(
      "--index <directory holding the index .sqlite> is required (e.g. .bench/home-scale-10000-keyword/data/cortexd/indexes)",
    );
  const r = rng(2024);
  await keywordProbe(
    dir,
    Array.from({ length: Number(args.flags.queries ?? 200) }, () => sampleQuery(r)),
  );
}
