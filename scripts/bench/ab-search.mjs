// A/B of the search between two builds, in one process: `node scripts/bench/ab-search.mjs <repoA>
// <repoB> [notes|daily] [queries]` (each repo built; the bench workspace /tmp/dump-ws-<corpus>, 2,000
// files, made here when missing). The same index is opened by both builds and each
// query's searches alternate between them (recall's search: limit 30, fullText; and a hybrid
// search), twice over; prints each stage's median, A → B. Timings only: compare outputs with the
// recall dump.
import { existsSync } from "node:fs";

const [A, B, corpus = "notes", nStr = "300"] = process.argv.slice(2);
const n = Number(nStr);
async function setup(repo, dbPath, build) {
  const d = (p) => import(`${repo}/dist/${p}`);
  const { SearchSchema } = await d("src/config/schema.js");
  const { openDatabase } = await d("src/index/db/db.js");
  const { IndexStore } = await d("src/index/repos/store.js");
  const { Indexer } = await d("src/indexer/sync.js");
  const { Searcher } = await d("src/search/searcher.js");
  const { ensureBuiltinModel } = await d("src/embed/builtin/ensure.js");
  const { createStaticBertProvider } = await d("src/embed/builtin/fast-provider.js");
  const provider = await createStaticBertProvider(
    await ensureBuiltinModel(`${process.env.HOME}/.cache/cortexd-bench/models`),
  );
  const store = new IndexStore(openDatabase(dbPath), "ab");
  if (build)
    await new Indexer({
      store,
      target: { root: `/tmp/dump-ws-${corpus}` },
      provider,
      chunking: { maxTokens: 400, overlapTokens: 80 },
    }).sync();
  store.keepKeywordsInMemory();
  await store.text.postings.ready();
  store.warmChunkMeta();
  store.warmVectorSearch();
  const now = () => Date.parse("2026-11-30T12:00:00Z");
  return { searcher: new Searcher({ store, provider, config: SearchSchema.parse({}), now }), d };
}
if (!existsSync(`/tmp/dump-ws-${corpus}`)) {
  const gen = await import(`${A}/dist/scripts/bench/${corpus === "daily" ? "generate" : "generate-notes"}.js`);
  (corpus === "daily" ? gen.generateWorkspace : gen.generateNotesWorkspace)(`/tmp/dump-ws-${corpus}`, 2000);
}
const dbPath = `/tmp/ab-search-${corpus}.sqlite`;
const fresh = !existsSync(dbPath);
const a = await setup(A, dbPath, fresh);
const b = await setup(B, dbPath, false);
const { randomQueries } = await a.d("scripts/bench/corpus-queries.js");
const qs = randomQueries(`/tmp/dump-ws-${corpus}`, n, 777);
const res = { recall: [{}, {}], hybrid: [{}, {}] };
const push = (o, k, v) => (o[k] ??= []).push(v);
for (let rep = 0; rep < 2; rep++)
  for (const q of qs) {
    for (const [kind, req] of [
      ["recall", { query: q, limit: 30, fullText: true, timings: true }],
      ["hybrid", { query: q, timings: true }],
    ]) {
      const order = (rep + qs.indexOf(q)) % 2 ? [0, 1] : [1, 0];
      for (const w of order) {
        const s = [a, b][w].searcher;
        const t = performance.now();
        const r = await s.search({ ...req });
        const el = performance.now() - t;
        const o = res[kind][w];
        push(o, "wall", el);
        for (const [k, v] of Object.entries(r.timings ?? {})) push(o, k, v);
      }
    }
  }
const med = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
};
for (const kind of ["recall", "hybrid"]) {
  const keys = Object.keys(res[kind][0]);
  console.log(kind + " (median ms, A → B)");
  console.log(
    "  " + keys.map((k) => `${k} ${med(res[kind][0][k]).toFixed(3)}→${med(res[kind][1][k]).toFixed(3)}`).join(", "),
  );
}
