import { readdirSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../../src/index/db/db.js";
import { IndexStore } from "../../src/index/repos/store.js";
import { postingsBytes } from "../../src/index/keyword/postings-blocks.js";
import { buildKeywordQuery } from "../../src/search/keyword/query.js";
import { rankKeywords } from "../../src/search/keyword/strategy.js";
import { mulberry32 } from "../../src/util/prng.js";
import { median, percentile, type Args } from "./util.js";

export interface KeywordProbe {
  chunks: number;
  tokens: number;
  postings: number;
  /** The postings' load at start and their typed arrays. */
  loadMs: number;
  loadCpuMs: number;
  /** The longest the event loop was held during the load. */
  stallMs: number;
  typedArraysMb: number;
  k: number;
  /** The keyword leg from the postings in memory (the daemon) and by FTS5 (a one-shot process). */
  memory: { p50: number; p95: number };
  /** The same leg in CPU time (process.cpuUsage: what a shared, loaded machine does not inflate). */
  memoryCpu: { p50: number; p95: number };
  fts5: { p50: number; p95: number };
  /** Queries whose top k from memory differs from FTS5 bm25's (0 when exact). */
  differ: number;
}

const ms = (x: number) => `${x.toFixed(3)} ms`;

/**
 * The keyword leg from the postings in memory against FTS5 on a built index: the postings' load
 * time and size, each path's latency on the same queries (interleaved, alternating which goes
 * first), and how many top-k lists differ (the memory path must equal FTS5's).
 */
export async function keywordProbe(
  indexDir: string,
  queriesOf: readonly string[] | ((store: IndexStore, maxId: number) => string[]),
  k = 40,
): Promise<KeywordProbe> {
  const file = readdirSync(indexDir).find((f) => f.endsWith(".sqlite"));
  if (!file) throw new Error(`no index in ${indexDir}`);
  const memory = new IndexStore(openDatabase(join(indexDir, file), { readonly: true }), "probe");
  const fts5 = new IndexStore(openDatabase(join(indexDir, file), { readonly: true }), "probe");
  try {
    const [t0, c0] = [performance.now(), process.cpuUsage()];
    // The longest the event loop waited during the load (what a query arriving then would wait).
    let lastTick = t0;
    let stallMs = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      stallMs = Math.max(stallMs, now - lastTick);
      lastTick = now;
    }, 1);
    memory.keepKeywordsInMemory();
    const ready = await memory.text.postings.ready();
    clearInterval(ticker);
    if (!ready) throw new Error(`postings did not load: ${memory.text.postings.lastError}`);
    const loadMs = performance.now() - t0;
    const loadCpu = process.cpuUsage(c0);
    const loadCpuMs = (loadCpu.user + loadCpu.system) / 1000;
    const view = memory.keywordPostings()!;
    let bytes = view.lengths.byteLength;
    let postings = 0;
    for (const l of view.lists.values()) {
      bytes += postingsBytes(l);
      postings += l.n;
    }
    const queries = typeof queriesOf === "function" ? queriesOf(memory, view.lengths.length - 1) : queriesOf;
    const lat = { memory: [] as number[], fts5: [] as number[], memoryCpu: [] as number[] };
    let differ = 0;
    for (const [i, query] of queries.entries()) {
      const q = buildKeywordQuery(query);
      if (!q.match) continue;
      const run = (store: IndexStore, into: number[], cpuInto?: number[]) => {
        const [t, c] = [performance.now(), process.cpuUsage()];
        const hits = rankKeywords(store, q, k);
        into.push(performance.now() - t);
        const used = process.cpuUsage(c);
        cpuInto?.push((used.user + used.system) / 1000);
        return hits;
      };
      const first = i % 2 ? run(memory, lat.memory, lat.memoryCpu) : null;
      const exact = run(fts5, lat.fts5);
      const got = first ?? run(memory, lat.memory, lat.memoryCpu);
      if (JSON.stringify(got) !== JSON.stringify(exact)) differ++;
    }
    const out: KeywordProbe = {
      chunks: view.rows,
      tokens: view.lists.size,
      postings,
      loadMs,
      loadCpuMs,
      stallMs,
      typedArraysMb: bytes / 1e6,
      k,
      memory: { p50: median(lat.memory), p95: percentile(lat.memory, 95) },
      memoryCpu: { p50: median(lat.memoryCpu), p95: percentile(lat.memoryCpu, 95) },
      fts5: { p50: median(lat.fts5), p95: percentile(lat.fts5, 95) },
      differ,
    };
    console.log(
      `  keyword postings (${out.chunks} chunks, ${out.tokens} tokens, ${postings} postings): loaded in ${ms(loadMs)} (CPU ${ms(loadCpuMs)}; event loop held ≤ ${ms(stallMs)}), ` +
        `typed arrays ${out.typedArraysMb.toFixed(1)} MB`,
    );
    console.log(
      `  keyword leg in-process (k ${k}, ${lat.memory.length} queries): postings p50 ${ms(out.memory.p50)}, p95 ${ms(out.memory.p95)} ` +
        `(CPU p50 ${ms(out.memoryCpu.p50)}, p95 ${ms(out.memoryCpu.p95)}); ` +
        `FTS5 bm25 p50 ${ms(out.fts5.p50)}, p95 ${ms(out.fts5.p95)}; top k unlike FTS5's: ${differ}`,
    );
    return out;
  } finally {
    memory.close();
    fts5.close();
  }
}

/** 2–4 words drawn from random chunks' text (common words included), as a user's words would be. */
function queriesFromIndex(store: IndexStore, maxId: number, n: number, seed: number): string[] {
  const r = mulberry32(seed);
  const out: string[] = [];
  for (let tries = 0; out.length < n && tries < 100 * n; tries++) {
    const id = 1 + Math.floor(r() * maxId);
    const words =
      store
        .chunkTexts([id])
        .get(id)
        ?.toLowerCase()
        .match(/[a-z]{2,}/g) ?? [];
    if (words.length < 4) continue;
    out.push(Array.from({ length: 2 + Math.floor(r() * 3) }, () => words[Math.floor(r() * words.length)]!).join(" "));
  }
  return out;
}

/** `npm run bench -- keywords --index <dir with the .sqlite> [--queries 300] [--k 40] [--seed 7]`: the probe alone. */
export async function benchKeywords(args: Args): Promise<void> {
  const dir = String(args.flags.index ?? "");
  if (!dir)
    throw new Error(
      "--index <directory holding the index .sqlite> is required (e.g. .bench/home-scale-10000-keyword/data/cortexd/indexes)",
    );
  const n = Number(args.flags.queries ?? 300);
  const seed = Number(args.flags.seed ?? 7);
  await keywordProbe(dir, (store, maxId) => queriesFromIndex(store, maxId, n, seed), Number(args.flags.k ?? 40));
}
