import type { SearchConfig } from "../config/schema.js";
import type { EmbeddingProvider } from "../embed/provider.js";
import type { ChunkMeta, IndexStore } from "../index/repos/store.js";
import { ChunkRows } from "./chunk-rows.js";
import { buildPathQuery, keywordLeg } from "./keyword/index.js";
import { PassageScorer } from "./passages.js";
import { StageTimer } from "./stage-timer.js";
import { applyImportance, applyRecency, bm25ToScore, distanceToScore, fuse, mmr, round } from "./stages.js";
import type { Candidate, SearchHit, SearchRequest, SearchResponse } from "./types.js";
import { errorMessage } from "../util/error-message.js";
import { readConsistently, type ReadSnapshot } from "../index/db/read-snapshot.js";
import { localDay } from "../util/local-day.js";
import { anchoredChunks, exactAnchors } from "./exact.js";
import { explainFacts } from "./search-facts.js";
import { entityBonus, entityLeg, NO_ENTITIES } from "./entity-leg.js";

export interface SearcherDeps {
  store: IndexStore;
  /** null: keyword-only. */
  provider: EmbeddingProvider | null;
  config: SearchConfig;
  /** Why there is no provider (reported as `fallback`). */
  providerUnavailable?: string;
  /** Wall clock for recency (ms since epoch). */
  now?: () => number;
}

/** Path-stage words matching more files than this are left out (see Searcher.pathStage). */
const PATH_TERM_MAX_FILES = 500;

/** The calendar day of a dated memory: a daily log's date, a transcript chunk's first timestamp (local day). */
function dateOf(row: Pick<ChunkMeta, "class" | "date" | "ts">): { date?: string } {
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

  /**
   * Ranks on one state of the index: on the caller's snapshot (a recall's), or on its own, run again
   * when the index changed under it (index/db/read-snapshot.ts).
   */
  async search(req: SearchRequest, snap?: ReadSnapshot): Promise<SearchResponse> {
    if (snap) return this.rank(req, snap);
    const store = this.deps.store;
    return readConsistently(
      () => store.readSnapshot(),
      (s) => this.rank(req, s),
    );
  }

  private async rank(req: SearchRequest, snap: ReadSnapshot): Promise<SearchResponse> {
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

    const keywordRan = req.keyword !== false && this.keywordStage(req.query, fetch, get);
    // Chunks holding a query token that only a few chunks hold (exact.ts): always among the results.
    const anchored = keywordRan ? anchoredChunks(exactAnchors(this.deps.store, req.query, cfg.exactChunks)) : new Map();
    for (const id of anchored.keys()) get(id);
    timer.lap("keyword");
    // The chunks naming the prompt's entities and the entities they co-occur with (entity-leg.ts).
    // Not for a narrower scope: which entities co-occur would be read from memories it may not see.
    const entities = req.visible ? NO_ENTITIES : entityLeg(this.deps.store, req.query, snap);
    for (const id of entities.chunks.keys()) get(id);
    timer.lap("entities");
    const vector = await this.vectorStage(req.query, fetch, candidates, get, snap);
    // Back in this request's code (vectorStage's own enter() ended with its return): the reads below answer the snapshot.
    snap.enter();
    timer.lap("vector");
    if (vector.query) req.onQueryVector?.(vector.query);
    const mode = keywordRan && vector.ran ? "hybrid" : keywordRan ? "keyword" : vector.ran ? "vector" : "none";
    const cands = [...candidates.values()];
    fuse(cands, cfg, { vector: vector.ran, keyword: keywordRan });
    for (const c of cands) {
      const link = entities.chunks.get(c.id);
      if (!link) continue;
      c.score += entityBonus(link);
      c.explain.entity = round(entityBonus(link));
    }
    timer.lap("fusion");

    // Every candidate's metadata from memory; texts only for the chunks a stage reads (chunk-rows).
    const meta = this.deps.store.chunkMeta(cands.map((c) => c.id));
    // A narrower scope than private never sees, nor is ranked against, what it may not see.
    const allowed = req.visible ? visibleAmong(this.deps.store, req.visible, cands) : null;
    const known = cands.filter((c) => meta.has(c.id) && (!allowed || allowed.has(c.id)));
    const rows = new ChunkRows(this.deps.store, meta, timer);
    timer.lap("rows");
    if (vector.query) await this.passageStage(vector.query, known, rows);
    snap.enter();
    timer.lap("passage");
    this.pathStage(req.query, known, meta);
    timer.lap("path");
    const now = req.now ?? (this.deps.now ?? Date.now)();
    for (const c of known) {
      const m = meta.get(c.id)!;
      applyImportance(c, m, cfg);
      applyRecency(c, m, cfg, now);
      c.explain.score = round(c.score);
    }
    let ranked = known.sort((a, b) => b.score - a.score || a.id - b.id);
    const window = limit + 5;
    ranked = mmr(
      ranked,
      rows.read(
        ranked.slice(0, window).map((c) => c.id),
        "rank",
      ),
      cfg.mmrLambda,
      window,
      cfg.mmrThreshold,
    );
    ranked = this.minScoreStage(ranked, req.minScore ?? cfg.minScore, limit);
    ranked = exactFirst(ranked, anchored);
    const top = ranked.slice(0, limit);
    const texts = rows.read(
      top.map((c) => c.id),
      "rank",
    );
    timer.lap("rank");

    const visibility =
      req.explain || req.withVisibility ? this.deps.store.visibility.of(top.map((c) => c.id)) : undefined;
    const results: SearchHit[] = top
      .filter((c) => texts.has(c.id))
      .map((c) => {
        const row = texts.get(c.id)!;
        return {
          path: row.path,
          startLine: row.startLine,
          endLine: row.endLine,
          // 0..1: boosts (passage, path, importance, exact) can lift the ranking value past 1, shown as 1.
          score: round(Math.min(1, c.score)),
          vectorScore: round(c.vectorScore),
          textScore: round(c.textScore),
          snippet: snippetOf(row.text, cfg.snippetChars),
          source: row.class,
          ...(req.explain ? { explain: c.explain } : {}),
          ...(visibility?.has(c.id) ? { visibility: visibility.get(c.id)! } : {}),
          ...(req.fullText ? { text: row.text, hash: row.hash, ...dateOf(row) } : {}),
        };
      });
    if (req.explain) explainFacts(this.deps.store, results);
    return {
      results,
      mode,
      ...(req.explain && entities.prompt.length > 0
        ? { entities: { prompt: entities.prompt, linked: entities.linked } }
        : {}),
      ...(this.deps.provider ? { model: this.deps.provider.modelName } : {}),
      ...(vector.fallback ? { fallback: vector.fallback } : {}),
      tookMs: round(performance.now() - started),
      ...(req.timings || req.explain ? { timings: (timer.lap("results"), timer.result()) } : {}),
    };
  }

  /** Stage "keyword": BM25 over chunk text with an OR query of the question's topic words (search/keyword). */
  private keywordStage(query: string, k: number, get: (id: number) => Candidate): boolean {
    const { store, config: cfg } = this.deps;
    const leg = keywordLeg(store, query, k, { keywordHalfScore: cfg.keywordHalfScore });
    for (const hit of leg.hits) {
      const c = get(hit.id);
      c.textScore = hit.score;
      if (hit.keyword !== undefined) c.explain.keyword = round(hit.keyword);
      if (hit.expanded !== undefined) c.explain.keywordExpanded = round(hit.expanded);
    }
    return leg.ran;
  }

  /** Stage "vector": KNN over chunk vectors with the embedded query (returned for the passage stage), and the keyword candidates' own similarity. */
  private async vectorStage(
    query: string,
    k: number,
    candidates: ReadonlyMap<number, Candidate>,
    get: (id: number) => Candidate,
    snap: ReadSnapshot,
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
    } finally {
      snap.enter();
    }
    if (!vec) return { ran: false, fallback: "query has no embeddable words" };
    const nearest = store.vectorSearch(vec, k);
    const found = new Set(nearest.map((h) => h.id));
    // The keyword leg's candidates the KNN did not reach are scored by their own similarity, not
    // 0: a memory that holds the prompt's words is not pushed down for lying outside the top k.
    const others = [...candidates.keys()].filter((id) => !found.has(id));
    for (const hit of [...nearest, ...store.vectors.distancesTo(vec, others)]) {
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
  private async passageStage(query: Float32Array, cands: Candidate[], rows: ChunkRows): Promise<void> {
    const { passages, passageWeight, passageCandidates } = this.deps.config;
    if (!this.passages || passages === "off" || passageWeight === 0) return;
    if (passages === "auto" && !this.deps.provider?.staticModel) return;
    const top = [...cands].sort((a, b) => b.score - a.score || a.id - b.id).slice(0, passageCandidates);
    const ids = top.map((c) => c.id);
    // Texts only for the chunks whose stored passage vectors lack token ids (or that have none).
    const best = await this.passages.scores(query, ids, this.deps.store.vectors.passages.byIds(ids), (need) =>
      rows.read(need, "passage"),
    );
    top.forEach((c, i) => {
      const s = best[i];
      if (s === undefined) return;
      const add = passageWeight * s;
      c.score += add;
      c.explain.passage = round(add);
    });
  }

  /** Stage "path": chunks of files whose path matches the query's words get + pathWeight × match. */
  private pathStage(query: string, cands: Candidate[], meta: Map<number, ChunkMeta>): void {
    const w = this.deps.config.pathWeight;
    if (w === 0) return;
    // A word in the paths of more than PATH_TERM_MAX_FILES files (a folder name) says nothing about
    // which file is meant, and BM25 over all of them is slow in a large workspace: leave it out.
    // A word in no path adds nothing to any file's score: left out too, and with no word left, no query.
    const words: string[] = [];
    const q = buildPathQuery(query, (quoted, word) => {
      const n = this.deps.store.pathFilesWith(word) ?? this.deps.store.pathMatchCount(quoted, PATH_TERM_MAX_FILES);
      const keep = n > 0 && n <= PATH_TERM_MAX_FILES;
      if (keep) words.push(word);
      return keep;
    });
    if (!q) return;
    // From the path index in memory when it can say (the same ranks as FTS5's), else FTS5.
    const hits = this.deps.store.pathSearchWords(words, 50) ?? this.deps.store.pathSearch(q, 50);
    const files = new Map(hits.map((f) => [f.fileId, bm25ToScore(f.rank)]));
    if (files.size === 0) return;
    for (const c of cands) {
      const m = files.get(meta.get(c.id)?.fileId ?? -1);
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

/** The candidates a scope may see (visibility/visibility.ts). */
function visibleAmong(store: IndexStore, visible: readonly string[], cands: readonly Candidate[]): Set<number> {
  const ok = new Set(visible);
  const out = new Set<number>();
  for (const [id, vis] of store.visibility.of(cands.map((c) => c.id))) if (ok.has(vis)) out.add(id);
  return out;
}

/**
 * Stage "exact": the chunks holding a query token verbatim that only a few chunks hold come first
 * (those holding more such tokens before others, then by score), each scored at least as the best
 * other result — so the default top-k holds them in every mode (docs/recall.md, the guarantee).
 */
function exactFirst(ranked: Candidate[], anchored: ReadonlyMap<number, number>): Candidate[] {
  if (anchored.size === 0) return ranked;
  const first = ranked
    .filter((c) => anchored.has(c.id))
    .sort((a, b) => anchored.get(b.id)! - anchored.get(a.id)! || b.score - a.score || a.id - b.id);
  if (first.length === 0) return ranked;
  const rest = ranked.filter((c) => !anchored.has(c.id));
  const floor = rest[0]?.score ?? 0;
  for (const c of first) {
    c.explain.exact = anchored.get(c.id)!;
    if (c.score < floor) c.score = floor;
    c.explain.score = round(c.score);
  }
  return [...first, ...rest];
}
