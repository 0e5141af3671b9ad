import type { SearchConfig } from "../config/schema.js";
import type { EmbeddingProvider } from "../embed/provider.js";
import type { IndexStore } from "../index/store.js";
import { buildKeywordQuery } from "./keyword-query.js";
import type { Candidate, SearchHit, SearchRequest, SearchResponse } from "./types.js";

export interface SearcherDeps {
  store: IndexStore;
  /** null: keyword-only. */
  provider: EmbeddingProvider | null;
  config: SearchConfig;
  /** Why there is no provider (reported as `fallback`). */
  providerUnavailable?: string;
  clock?: () => number;
}

/** BM25 rank (negative, lower is better) → a score in (0, 1). */
export function bm25ToScore(rank: number): number {
  const r = Math.max(0, -rank);
  return r / (1 + r);
}

/** Cosine distance (0..2) → similarity score clamped to [0, 1]. */
export function distanceToScore(distance: number): number {
  return Math.max(0, Math.min(1, 1 - distance));
}

function snippetOf(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf(" ", max);
  return text.slice(0, cut > max * 0.6 ? cut : max) + "…";
}

/**
 * Hybrid search: keyword candidates (FTS5 BM25) and vector candidates (sqlite-vec KNN), merged with
 * weights. Each step is a named stage so ranking refinements slot in without touching the others.
 */
export class Searcher {
  constructor(private readonly deps: SearcherDeps) {}

  /** Switches the embedding provider used for query vectors (null: keyword-only, with the reason). */
  setProvider(provider: EmbeddingProvider | null, unavailableReason?: string): void {
    this.deps.provider = provider;
    if (unavailableReason) this.deps.providerUnavailable = unavailableReason;
    else delete this.deps.providerUnavailable;
  }

  /** Replaces the ranking settings (config reload). */
  setConfig(config: SearchConfig): void {
    this.deps.config = config;
  }

  async search(req: SearchRequest): Promise<SearchResponse> {
    const clock = this.deps.clock ?? (() => performance.now());
    const started = clock();
    const cfg = this.deps.config;
    const limit = req.limit ?? cfg.maxResults;
    const fetch = Math.min(200, Math.max(limit * cfg.candidateMultiplier, limit));
    const candidates = new Map<number, Candidate>();
    const get = (id: number): Candidate => {
      let c = candidates.get(id);
      if (!c) candidates.set(id, (c = { id, textScore: 0, vectorScore: 0, score: 0, explain: {} }));
      return c;
    };

    const keywordRan = this.keywordStage(req.query, fetch, get);
    const vector = await this.vectorStage(req.query, fetch, get);
    const mode = keywordRan && vector.ran ? "hybrid" : keywordRan ? "keyword" : vector.ran ? "vector" : "none";
    this.fuseStage([...candidates.values()], vector.ran, keywordRan);

    const ranked = [...candidates.values()].sort((a, b) => b.score - a.score || a.id - b.id);
    const rows = this.deps.store.chunksByIds(ranked.slice(0, Math.max(limit * 2, limit)).map((c) => c.id));
    const results: SearchHit[] = [];
    for (const c of ranked) {
      if (results.length >= limit) break;
      const row = rows.get(c.id);
      if (!row || c.score < (req.minScore ?? 0)) continue;
      results.push({
        path: row.path,
        startLine: row.startLine,
        endLine: row.endLine,
        score: round(c.score),
        vectorScore: round(c.vectorScore),
        textScore: round(c.textScore),
        snippet: snippetOf(row.text, cfg.snippetChars),
        source: row.class,
        ...(req.explain ? { explain: c.explain } : {}),
        ...(req.fullText ? { text: row.text, hash: row.hash } : {}),
      });
    }
    return {
      results,
      mode,
      ...(this.deps.provider ? { model: this.deps.provider.modelName } : {}),
      ...(vector.fallback ? { fallback: vector.fallback } : {}),
      tookMs: round(clock() - started),
    };
  }

  /** Stage "keyword": BM25 over chunk text with an OR query of the question's topic words. */
  private keywordStage(query: string, k: number, get: (id: number) => Candidate): boolean {
    const q = buildKeywordQuery(query);
    if (!q.match) return false;
    for (const hit of this.deps.store.keywordSearch(q.match, k)) {
      const c = get(hit.id);
      c.textScore = bm25ToScore(hit.rank);
      c.explain.keyword = round(c.textScore);
    }
    return true;
  }

  /** Stage "vector": KNN over chunk vectors with the embedded query. */
  private async vectorStage(query: string, k: number, get: (id: number) => Candidate): Promise<{ ran: boolean; fallback?: string }> {
    const { provider, store } = this.deps;
    if (!provider) return { ran: false, fallback: this.deps.providerUnavailable ?? "no embedding provider (keyword-only)" };
    if (store.vectorDims === null) return { ran: false, fallback: store.vecError ?? "no vectors indexed yet" };
    if (query.trim() === "") return { ran: false };
    let vec: Float32Array | null;
    try {
      [vec = null] = await provider.embedBatch([query]);
    } catch (e) {
      return { ran: false, fallback: `query embedding failed: ${(e as Error).message}` };
    }
    if (!vec) return { ran: false, fallback: "query has no embeddable words" };
    for (const hit of store.vectorSearch(vec, k)) {
      const c = get(hit.id);
      c.vectorScore = distanceToScore(hit.distance);
      c.explain.vector = round(c.vectorScore);
    }
    return { ran: true };
  }

  /** Stage "fusion": weighted merge (vectorWeight·vector + textWeight·keyword), normalised weights. */
  private fuseStage(cands: Candidate[], vectorRan: boolean, keywordRan: boolean): void {
    const cfg = this.deps.config;
    const wv = vectorRan ? cfg.vectorWeight : 0;
    const wt = keywordRan ? cfg.textWeight : 0;
    const total = wv + wt || 1;
    for (const c of cands) {
      c.score = (wv * c.vectorScore + wt * c.textScore) / total;
      c.explain.fusion = round(c.score);
    }
  }
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
