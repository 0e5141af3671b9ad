import type { SearchConfig } from "../config/schema.js";
import type { EmbeddingProvider } from "../embed/provider.js";
import type { ChunkRow, IndexStore } from "../index/store.js";
import { LARGE_INDEX_CHUNKS, PATH_TERM_MAX_FILES, RECENT_WINDOW, bm25Ranker, planKeyword } from "./keyword-budget.js";
import { buildKeywordQuery, buildPathQuery, buildPrefixQuery } from "./keyword-query.js";
import { listTopK } from "./keyword-lists.js";
import { topKeywordHits } from "./keyword-topk.js";
import { PassageScorer } from "./passages.js";
import { StageTimer } from "./stage-timer.js";
import { applyImportance, applyRecency, bm25ToScore, distanceToScore, fuse, mmr, round } from "./stages.js";
import type { Candidate, SearchHit, SearchRequest, SearchResponse } from "./types.js";
import { errorMessage } from "../util/error-message.js";
import { localDay } from "./dates.js";

export interface SearcherDeps {
  store: IndexStore;
  /** null: keyword-only. */
  provider: EmbeddingProvider | null;
  config: SearchConfig;
  /** Why there is no provider (reported as `fallback`). */
  providerUnavailable?: string;
  /** Wall clock for recency (ms since epoch). */
  now?: () => number;
  /** Postings FTS5 bm25 may score per query in a large index (Infinity: always the exact ranking). */
  keywordBudget?: number;
}

/** The calendar day of a dated memory: a daily log's date, a transcript chunk's first timestamp (local day). */
function dateOf(row: ChunkRow): { date?: string } {
  if (row.class === "daily" && row.date) return { date: row.date };
  if (row.ts) return { date: localDay(row.ts) };
  return {};
}

function snippetOf(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf(" ", max);
  return text.slice(0, cut > max * 0.6 ? cut : max) + "…";
}

/**
 * The ranking pipeline, one named stage at a time (each visible with `explain`):
 * keyword (FTS5 BM25, OR of topic words; prefix expansion when that finds too little) →
 * vector (sqlite-vec KNN) → fusion (weighted or RRF) → passage (best line's similarity) →
 * path (file names matching the query) → importance (`<!-- importance: N -->`) →
 * recency (bounded tie-breaker) → mmr (diversity) → minScore (never drops every keyword match).
 */
export class Searcher {
  private passages: PassageScorer | null;

  constructor(private readonly deps: SearcherDeps) {
    this.passages = deps.provider ? new PassageScorer(deps.provider) : null;
  }

  /** Switches the embedding provider used for query vectors (null: keyword-only, with the reason). */
  setProvider(provider: EmbeddingProvider | null, unavailableReason?: string): void {
    this.deps.provider = provider;
    this.passages = provider ? new PassageScorer(provider) : null;
    if (unavailableReason) this.deps.providerUnavailable = unavailableReason;
    else delete this.deps.providerUnavailable;
  }

  /** Switches to another connection to the index (reopened read-write after a read-only spell). */
  setStore(store: IndexStore): void {
    this.deps.store = store;
  }

  /** Replaces the ranking settings (config reload). */
  setConfig(config: SearchConfig): void {
    this.deps.config = config;
  }

  get provider(): EmbeddingProvider | null {
    return this.deps.provider;
  }

  get config(): SearchConfig {
    return this.deps.config;
  }

  async search(req: SearchRequest): Promise<SearchResponse> {
    const started = performance.now();
    const timer = new StageTimer();
    const cfg = this.deps.config;
    const limit = req.limit ?? cfg.maxResults;
    const fetch = Math.min(200, Math.max(limit * cfg.candidateMultiplier, limit, 24));
    const candidates = new Map<number, Candidate>();
    const get = (id: number): Candidate => {
      let c = candidates.get(id);
      if (!c) candidates.set(id, (c = { id, textScore: 0, vectorScore: 0, score: 0, explain: {} }));
      return c;
    };

    const keywordRan = this.keywordStage(req.query, fetch, get);
    timer.lap("keyword");
    const vector = await this.vectorStage(req.query, fetch, get);
    timer.lap("vector");
    const mode = keywordRan && vector.ran ? "hybrid" : keywordRan ? "keyword" : vector.ran ? "vector" : "none";
    const cands = [...candidates.values()];
    fuse(cands, cfg, { vector: vector.ran, keyword: keywordRan });
    timer.lap("fusion");

    const rows = this.deps.store.chunksByIds(cands.map((c) => c.id));
    timer.lap("rows");
    if (vector.query) await this.passageStage(vector.query, cands, rows);
    timer.lap("passage");
    this.pathStage(req.query, cands, rows);
    timer.lap("path");
    const now = (this.deps.now ?? Date.now)();
    for (const c of cands) {
      const row = rows.get(c.id);
      if (!row) continue;
      applyImportance(c, row, cfg);
      applyRecency(c, row, cfg, now);
      c.explain.score = round(c.score);
    }
    let ranked = cands.filter((c) => rows.has(c.id)).sort((a, b) => b.score - a.score || a.id - b.id);
    ranked = mmr(ranked, rows, cfg.mmrLambda, limit + 5, cfg.mmrThreshold);
    ranked = this.minScoreStage(ranked, req.minScore ?? cfg.minScore, limit);
    timer.lap("rank");

    const results: SearchHit[] = ranked.slice(0, limit).map((c) => {
      const row = rows.get(c.id)!;
      return {
        path: row.path,
        startLine: row.startLine,
        endLine: row.endLine,
        score: round(c.score),
        vectorScore: round(c.vectorScore),
        textScore: round(c.textScore),
        snippet: snippetOf(row.text, cfg.snippetChars),
        source: row.class,
        ...(req.explain ? { explain: c.explain } : {}),
        ...(req.fullText ? { text: row.text, hash: row.hash, ...dateOf(row) } : {}),
      };
    });
    return {
      results,
      mode,
      ...(this.deps.provider ? { model: this.deps.provider.modelName } : {}),
      ...(vector.fallback ? { fallback: vector.fallback } : {}),
      tookMs: round(performance.now() - started),
      ...(req.timings || req.explain ? { timings: (timer.lap("results"), timer.result()) } : {}),
    };
  }

  /**
   * Stage "keyword": BM25 over chunk text with an OR query of the question's topic words. A large
   * index plans the words against a postings budget (search/keyword-budget); within it, the exact
   * top-k is found without scoring every chunk that holds a common word (search/keyword-topk).
   */
  private keywordStage(query: string, k: number, get: (id: number) => Candidate): boolean {
    const { store, config: cfg } = this.deps;
    const q = buildKeywordQuery(query);
    if (!q.match) return false;
    let used = q.terms;
    let hits: { id: number; rank: number }[];
    // A small index runs every query whole (what planKeyword would say): no word statistics needed.
    if (store.ftsTotals().rows < LARGE_INDEX_CHUNKS) hits = store.keywordSearch(q.match, k);
    else {
      const { stats, chunks, avgTokens } = store.termStats(q.terms);
      const plan = planKeyword(stats, chunks, this.deps.keywordBudget);
      if (plan.kind !== "full") {
        const rank = bm25Ranker(plan.rescore, chunks, avgTokens, (token) => store.stemsOf(token));
        // Common words with impact-ordered lists: candidates by bound, scored until the top k is proven (search/keyword-lists).
        const listed = listTopK(store, {
          terms: plan.rescore,
          rare: plan.kind === "rare" ? plan.terms : [],
          phrase: (t) => q.phrases[q.terms.indexOf(t)]!,
          chunks,
          k,
          rank,
        });
        let ranked: { id: number; rank: number }[];
        if (listed) ranked = listed.hits;
        else {
          // Candidates from the rare words (or the newest matches), ranked by BM25 over every word.
          const match = buildKeywordQuery(plan.terms.join(" "), { keepStopWords: true }).match!;
          let found: { id: number }[];
          if (plan.kind === "rare") found = store.keywordSearch(match, Math.max(4 * k, 100));
          else {
            // The newest chunks holding all the words first, then the newest holding any.
            found =
              plan.terms.length > 1
                ? store.keywordSearch(match.split(" OR ").join(" AND "), RECENT_WINDOW, "recent")
                : [];
            if (found.length < RECENT_WINDOW) {
              const seen = new Set(found.map((h) => h.id));
              found.push(
                ...store
                  .keywordSearch(match, RECENT_WINDOW, "recent")
                  .filter((h) => !seen.has(h.id))
                  .slice(0, RECENT_WINDOW - found.length),
              );
            }
          }
          const texts = store.chunkTexts(found.map((h) => h.id));
          ranked = found
            .map((h) => ({ id: h.id, rank: rank(texts.get(h.id) ?? "") }))
            .filter((h) => h.rank < 0)
            .sort((a, b) => a.rank - b.rank || a.id - b.id)
            .slice(0, k);
        }
        for (const hit of ranked) {
          const c = get(hit.id);
          c.textScore = bm25ToScore(hit.rank, cfg.keywordHalfScore);
          c.explain.keyword = round(c.textScore);
        }
        return true;
      }
      // In a large index, words in more than half of the chunks carry no BM25 weight (FTS5 floors
      // their IDF) and the plan leaves them out when rarer words remain. (A small index keeps them:
      // they are cheap there, and still find memories that share only them.)
      used = plan.terms;
      if (used.length > 1) {
        const byTerm = new Map(stats.map((s, i) => [s.term, { phrase: q.phrases[i]!, df: s.exact ? s.df : null }]));
        hits = topKeywordHits(
          store,
          used.map((t) => byTerm.get(t)!),
          chunks,
          k,
        );
      } else {
        hits = store.keywordSearch(
          used.length < q.terms.length ? buildKeywordQuery(used.join(" "), { keepStopWords: true }).match! : q.match,
          k,
        );
      }
    }
    // FTS5 floors the IDF of words found in most chunks at 1e-6, so in a small workspace every raw
    // score can collapse towards 0 while their order stays right: then score relative to the best.
    const best = hits.length ? Math.min(...hits.map((h) => h.rank)) : 0;
    const degenerate = best < 0 && best > -1e-3;
    for (const hit of hits) {
      const c = get(hit.id);
      c.textScore = degenerate ? hit.rank / best : bm25ToScore(hit.rank, cfg.keywordHalfScore);
      c.explain.keyword = round(c.textScore);
    }
    // Expansion: when the exact words find too little, match their prefixes (plural, tense, …).
    if (hits.length < Math.min(k, 8)) {
      const prefix = buildPrefixQuery(used);
      if (prefix) {
        for (const hit of store.keywordSearch(prefix, k)) {
          const c = get(hit.id);
          const s = 0.8 * bm25ToScore(hit.rank, cfg.keywordHalfScore);
          if (s > c.textScore) {
            c.textScore = s;
            c.explain.keywordExpanded = round(s);
          }
        }
      }
    }
    return true;
  }

  /** Stage "vector": KNN over chunk vectors with the embedded query (returned for the passage stage). */
  private async vectorStage(
    query: string,
    k: number,
    get: (id: number) => Candidate,
  ): Promise<{ ran: boolean; fallback?: string; query?: Float32Array }> {
    const { provider, store } = this.deps;
    if (!provider)
      return { ran: false, fallback: this.deps.providerUnavailable ?? "no embedding provider (keyword-only)" };
    if (store.vectorDims === null) return { ran: false, fallback: store.vecError ?? "no vectors indexed yet" };
    if (query.trim() === "") return { ran: false };
    let vec: Float32Array | null;
    try {
      [vec = null] = await (provider.embedQueries ? provider.embedQueries([query]) : provider.embedBatch([query]));
    } catch (e) {
      return { ran: false, fallback: `query embedding failed: ${errorMessage(e)}` };
    }
    if (!vec) return { ran: false, fallback: "query has no embeddable words" };
    for (const hit of store.vectorSearch(vec, k)) {
      const c = get(hit.id);
      c.vectorScore = distanceToScore(hit.distance);
      c.explain.vector = round(c.vectorScore);
    }
    return { ran: true, query: vec };
  }

  /**
   * Stage "passage": the best `passageCandidates` chunks by fused score get + passageWeight × the
   * similarity of their best line (or transcript message) to the query (search/passages.ts).
   */
  private async passageStage(query: Float32Array, cands: Candidate[], rows: Map<number, ChunkRow>): Promise<void> {
    const { passages, passageWeight, passageCandidates } = this.deps.config;
    if (!this.passages || passages === "off" || passageWeight === 0) return;
    if (passages === "auto" && !this.deps.provider?.staticModel) return;
    const head = cands
      .filter((c) => rows.has(c.id))
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, passageCandidates);
    const best = await this.passages.best(
      query,
      head.map((c) => rows.get(c.id)!),
      this.deps.store.vectors.passages.byIds(head.map((c) => c.id)),
    );
    head.forEach((c, i) => {
      const add = passageWeight * best[i]!;
      c.score += add;
      c.explain.passage = round(add);
    });
  }

  /** Stage "path": chunks of files whose path matches the query's words get + pathWeight × match. */
  private pathStage(query: string, cands: Candidate[], rows: Map<number, ChunkRow>): void {
    const w = this.deps.config.pathWeight;
    if (w === 0) return;
    // A word in the paths of more than PATH_TERM_MAX_FILES files (a folder name) says nothing about
    // which file is meant, and BM25 over all of them is slow in a large workspace: leave it out.
    const q = buildPathQuery(query, (t) => this.deps.store.pathMatchesAtMost(t, PATH_TERM_MAX_FILES));
    if (!q) return;
    const files = new Map(this.deps.store.pathSearch(q, 50).map((f) => [f.fileId, bm25ToScore(f.rank)]));
    if (files.size === 0) return;
    for (const c of cands) {
      const m = files.get(rows.get(c.id)?.fileId ?? -1);
      if (m === undefined) continue;
      c.score += w * m;
      c.explain.path = round(w * m);
    }
  }

  /**
   * Stage "minScore": drops weak results, but never every keyword match (a known failure of the
   * reference engine: keyword-only hits scored under a vector-weighted threshold vanished).
   */
  private minScoreStage(ranked: Candidate[], minScore: number, limit: number): Candidate[] {
    if (minScore <= 0) return ranked;
    const kept = ranked.filter((c) => c.score >= minScore);
    if (kept.some((c) => c.textScore > 0)) return kept;
    const keyword = ranked.filter((c) => c.textScore > 0).slice(0, Math.min(3, limit));
    return [...kept, ...keyword].sort((a, b) => b.score - a.score || a.id - b.id);
  }
}
