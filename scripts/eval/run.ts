/**
 * The LoCoMo retrieval loop: one real index per conversation (and per provider) in a temp dir,
 * every scorable question run through the real Searcher, results scored with metrics.ts.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmbeddingSchema, RecallSchema, SearchSchema, type SearchConfig } from "../../src/config/schema.js";
import type { EmbeddingProvider } from "../../src/embed/provider.js";
import { selectProvider } from "../../src/embed/select.js";
import { openDatabase } from "../../src/index/db/db.js";
import { IndexStore } from "../../src/index/repos/store.js";
import { Indexer } from "../../src/indexer/sync.js";
import type { ChunkingOptions } from "../../src/ingest/types.js";
import { Searcher } from "../../src/search/searcher.js";
import type { SearchHit } from "../../src/search/types.js";
import { loadConversations, makeWorkspace, type Conversation, type Query, type Variant } from "./data.js";
import { marker, recallOf, scoreQuery, type QueryScores } from "./metrics.js";
import { recall } from "../../src/search/recall.js";
import type { RecallResult } from "../../src/rpc/protocol.js";

export const MODES = ["keyword", "vector", "hybrid"] as const;
export type Mode = (typeof MODES)[number];

export interface RunOptions {
  dir: string;
  variant: Variant;
  modes: Mode[];
  /** Results per query. */
  limit: number;
  /** Only these conversations. */
  convs?: string[];
  /** Hybrid weights override. */
  weights?: { vector: number; text: number };
  /** search.fusion passthrough (only when the SearchSchema has that key). */
  fusion?: string;
  /** Other search settings (the `search` section of the config), e.g. {"mmrLambda": 1}. */
  search?: Record<string, unknown>;
  /** Recall settings (the `recall` section of the config), e.g. {"relevance": "off"}. */
  recall?: Record<string, unknown>;
  /** Append each question's recall explanation (candidates, evidence, verdicts) to this JSONL file. */
  dump?: string;
  budgetChars: number;
  chunking: ChunkingOptions;
  /** Data dir for the embedding model (models/ below it). */
  dataDir: string;
  /** A GGUF to use instead of the built-in model. */
  model?: string;
  /** Append each evidence turn missing from the recall context to this JSONL file (see writeMisses). */
  misses?: string;
  /** Keep the temp dir (indexes + workspaces) for inspection. */
  keep?: boolean;
  log?: (msg: string) => void;
}

export interface QueryRecord {
  conv: string;
  qid: string;
  category: number;
  categoryName: string;
  evidence: string[];
  scores: QueryScores;
  latencyMs: number;
  /** What the engine says ran. */
  engineMode: string;
  fallback?: string;
}

export interface IndexInfo {
  conv: string;
  kind: "keyword" | "vector";
  files: number;
  chunks: number;
  vectors: number;
  noVector: number;
  meanChunkChars: number;
  /** Turns of turns.jsonl whose marker occurs in at least one chunk (evidence that can be found at all). */
  turnsCovered: number;
  turns: number;
  ms: number;
  skipped: number;
  malformed: number;
}

export interface ModeRun {
  mode: Mode;
  status: "ok" | "skipped";
  reason?: string;
  config: SearchConfig;
  records: QueryRecord[];
  /** Index build time attributed to this mode (0 when it reuses another mode's indexes). */
  indexMs: number;
  /** Which mode's indexes it reuses. */
  sharesIndexWith?: Mode;
  /** Model load (vector modes). */
  providerMs: number;
  queryMs: number;
  latencies: number[];
  engineModes: Record<string, number>;
  /** Results whose chunk could not be told apart from another with the same file and lines. */
  ambiguousTexts: number;
}

export interface RunResult {
  options: Omit<RunOptions, "log">;
  conversations: { id: string; queries: number; turns: number }[];
  modes: ModeRun[];
  indexes: IndexInfo[];
  provider?: { model?: string; identity?: string; dims?: number; state: string; reason?: string };
  notes: string[];
  totalMs: number;
  tmpDir: string;
}

/** The search config of a mode: vector → vector leg only (text weight 0); hybrid → defaults or override. */
export function modeConfig(
  mode: Mode,
  opts: Pick<RunOptions, "weights" | "fusion" | "search">,
  notes: string[] = [],
): SearchConfig {
  const over: Record<string, unknown> = {};
  if (mode === "vector") {
    over.vectorWeight = 1;
    over.textWeight = 0;
  } else if (mode === "hybrid") {
    if (opts.weights) {
      over.vectorWeight = opts.weights.vector;
      over.textWeight = opts.weights.text;
    }
    if (opts.fusion !== undefined) {
      if ("fusion" in SearchSchema.shape) over.fusion = opts.fusion;
      else if (!notes.some((n) => n.startsWith("--fusion")))
        notes.push(`--fusion ${opts.fusion} ignored: the search config has no "fusion" key`);
    }
  }
  return SearchSchema.parse({ ...opts.search, ...over });
}

/** Chunk texts of an index by (path, startLine, endLine); several chunks may share a key. */
function chunkTextIndex(store: IndexStore): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of store.listFiles()) {
    for (const c of store.chunksOfFile(f.path)) {
      const key = `${c.path}\0${c.startLine}\0${c.endLine}`;
      const list = out.get(key);
      if (list) list.push(c.text);
      else out.set(key, [c.text]);
    }
  }
  return out;
}

/** The full text of a result (not just its snippet). */
function resultText(hit: SearchHit, texts: Map<string, string[]>, onAmbiguous: () => void): string {
  const list = texts.get(`${hit.path}\0${hit.startLine}\0${hit.endLine}`);
  if (!list || list.length === 0) return hit.snippet; // should not happen: the index is not changing
  if (list.length === 1) return list[0]!;
  const prefix = hit.snippet.endsWith("…") ? hit.snippet.slice(0, -1) : hit.snippet;
  const matches = list.filter((t) => t.startsWith(prefix));
  if (matches.length !== 1) onAmbiguous();
  return matches[0] ?? list[0]!;
}

export interface BuiltIndex {
  store: IndexStore;
  texts: Map<string, string[]>;
  info: IndexInfo;
}

export async function buildIndex(
  conv: Conversation,
  root: string,
  dbPath: string,
  provider: EmbeddingProvider | null,
  chunking: ChunkingOptions,
): Promise<BuiltIndex> {
  const started = performance.now();
  const store = new IndexStore(openDatabase(dbPath), `eval-${conv.id}`);
  const indexer = new Indexer({ store, target: { root }, provider, chunking });
  const report = await indexer.sync();
  // Searched as the daemon searches: keyword postings in memory.
  store.keepKeywordsInMemory();
  if (!(await store.text.postings.ready())) throw new Error(`keyword postings: ${store.text.postings.lastError}`);
  const ms = performance.now() - started;
  const counts = store.counts();
  const texts = chunkTextIndex(store);
  let chars = 0;
  let n = 0;
  const all: string[] = [];
  for (const list of texts.values())
    for (const t of list) {
      chars += t.length;
      n++;
      all.push(t);
    }
  const joined = all.join("\n");
  const turnsCovered = conv.turnIds.filter((id) => joined.includes(marker(id))).length;
  return {
    store,
    texts,
    info: {
      conv: conv.id,
      kind: provider ? "vector" : "keyword",
      files: counts.files,
      chunks: counts.chunks,
      vectors: counts.vectors,
      noVector: counts.noVector,
      meanChunkChars: n ? chars / n : 0,
      turnsCovered,
      turns: conv.turnIds.length,
      ms,
      skipped: report.skipped.length,
      malformed: report.malformedLines,
    },
  };
}

/**
 * One JSON line per evidence turn that did not make it into the recall context: where its chunk
 * ranked in a 40-deep search (0: not found), and whether that chunk was recalled but excerpted
 * without the line. For tuning; the data stays in ../shared (the file goes where you say).
 */
async function writeMisses(
  file: string,
  conv: Conversation,
  q: Query,
  searcher: Searcher,
  injected: RecallResult,
  mode: Mode,
): Promise<void> {
  const deep = await searcher.search({ query: q.question, limit: 40, fullText: true });
  for (const e of q.evidence) {
    const m = marker(e);
    if (injected.context.includes(m)) continue;
    const rank = deep.results.findIndex((h) => (h.text ?? "").includes(m));
    const hit = rank >= 0 ? deep.results[rank]! : null;
    const excerpted = hit
      ? injected.memories.some((r) => r.path === hit.path && r.startLine <= hit.endLine && r.endLine >= hit.startLine)
      : false;
    const line = hit ? ((hit.text ?? "").split("\n").find((l) => l.includes(m)) ?? "") : "";
    appendFileSync(
      file,
      `${JSON.stringify({ mode, conv: conv.id, qid: q.qid, category: q.category, question: q.question, evidence: e, rank: rank + 1, excerpted, recalled: injected.memories.length, line })}\n`,
    );
  }
}

/** One JSON line per question: its recall context and explanation, each candidate marked with the evidence ids it holds (for tuning). */
function dumpExplain(file: string, conv: Conversation, q: Query, injected: RecallResult, mode: Mode): void {
  appendFileSync(
    file,
    `${JSON.stringify({ mode, conv: conv.id, qid: q.qid, category: q.category, question: q.question, evidence: q.evidence, chars: injected.context.length, found: q.evidence.filter((e) => injected.context.includes(marker(e))), context: injected.context, explain: injected.explain })}\n`,
  );
}

async function runQueries(
  conv: Conversation,
  queries: Query[],
  searcher: Searcher,
  index: BuiltIndex,
  run: ModeRun,
  opts: RunOptions,
): Promise<void> {
  const started = performance.now();
  for (const q of queries) {
    const t0 = performance.now();
    const res = await searcher.search({ query: q.question, limit: opts.limit });
    const latencyMs = performance.now() - t0;
    const texts = res.results.map((h) => resultText(h, index.texts, () => run.ambiguousTexts++));
    // The headline: what memory.recall would inject within the token budget.
    const injected = await recall(searcher, index.store, {
      query: q.question,
      budgetTokens: Math.round(opts.budgetChars / 4),
      record: false,
      config: RecallSchema.parse(opts.recall ?? {}),
      ...(opts.dump ? { explain: true } : {}),
    });
    if (opts.dump) dumpExplain(opts.dump, conv, q, injected, run.mode);
    if (opts.misses) await writeMisses(opts.misses, conv, q, searcher, injected, run.mode);
    run.latencies.push(latencyMs);
    run.engineModes[res.mode] = (run.engineModes[res.mode] ?? 0) + 1;
    run.records.push({
      conv: conv.id,
      qid: q.qid,
      category: q.category,
      categoryName: q.categoryName,
      evidence: q.evidence,
      scores: {
        ...scoreQuery(texts, q.evidence, opts.budgetChars),
        budgetRecall: recallOf([injected.context], q.evidence),
        injectedChars: injected.context.length,
      },
      latencyMs,
      engineMode: res.mode,
      ...(res.fallback ? { fallback: res.fallback } : {}),
    });
  }
  run.queryMs += performance.now() - started;
}

export async function runLocomo(opts: RunOptions): Promise<RunResult> {
  const log = opts.log ?? (() => undefined);
  const t0 = performance.now();
  const notes: string[] = [];
  const convs = loadConversations(opts.dir, opts.convs);
  if (convs.length === 0) throw new Error(`no conversations (folders with queries.jsonl) in ${opts.dir}`);
  const runs = new Map<Mode, ModeRun>();
  for (const mode of opts.modes) {
    runs.set(mode, {
      mode,
      status: "ok",
      config: modeConfig(mode, opts, notes),
      records: [],
      indexMs: 0,
      providerMs: 0,
      queryMs: 0,
      latencies: [],
      engineModes: {},
      ambiguousTexts: 0,
    });
  }
  const wantVectors = opts.modes.some((m) => m !== "keyword");
  let provider: EmbeddingProvider | null = null;
  let providerInfo: RunResult["provider"];
  if (wantVectors) {
    const started = performance.now();
    const cfg = EmbeddingSchema.parse(opts.model ? { provider: "local", model: opts.model } : {});
    mkdirSync(opts.dataDir, { recursive: true });
    const sel = await selectProvider(cfg, { dataDir: opts.dataDir });
    const ms = performance.now() - started;
    provider = sel.provider;
    providerInfo = {
      state: sel.status.state,
      ...(sel.status.model ? { model: sel.status.model } : {}),
      ...(sel.status.identity ? { identity: sel.status.identity } : {}),
      ...(sel.status.dims ? { dims: sel.status.dims } : {}),
      ...(sel.status.reason ? { reason: sel.status.reason } : {}),
    };
    const first = opts.modes.find((m) => m !== "keyword")!;
    for (const m of opts.modes) {
      if (m === "keyword") continue;
      const run = runs.get(m)!;
      if (!provider) {
        run.status = "skipped";
        run.reason =
          sel.status.reason ?? (opts.model ? `model ${opts.model} unavailable` : "built-in model unavailable");
      } else if (m === first) run.providerMs = ms;
      else run.sharesIndexWith = first;
    }
    log(
      provider
        ? `model ${provider.modelName} (${provider.dims}d) ready in ${(ms / 1000).toFixed(2)} s`
        : `vector modes skipped: ${sel.status.reason}`,
    );
  }

  const tmp = mkdtempSync(join(tmpdir(), "cortexd-eval-locomo-"));
  const indexes: IndexInfo[] = [];
  try {
    for (const conv of convs) {
      const queries = conv.queries.filter((q) => q.scorable);
      const cdir = join(tmp, `${conv.id}-${opts.variant}`);
      const root = makeWorkspace(conv, opts.variant, cdir);
      const keyword = runs.get("keyword");
      if (keyword) {
        const idx = await buildIndex(conv, root, join(cdir, "keyword.sqlite"), null, opts.chunking);
        indexes.push(idx.info);
        keyword.indexMs += idx.info.ms;
        try {
          const searcher = new Searcher({ store: idx.store, provider: null, config: keyword.config });
          await runQueries(conv, queries, searcher, idx, keyword, opts);
        } finally {
          idx.store.close();
        }
        log(
          `${conv.id}: keyword index ${idx.info.chunks} chunks in ${idx.info.ms.toFixed(0)} ms; ${queries.length} queries`,
        );
      }
      const vectorRuns = opts.modes
        .filter((m) => m !== "keyword")
        .map((m) => runs.get(m)!)
        .filter((r) => r.status === "ok");
      if (provider && vectorRuns.length) {
        const idx = await buildIndex(conv, root, join(cdir, "vector.sqlite"), provider, opts.chunking);
        indexes.push(idx.info);
        vectorRuns[0]!.indexMs += idx.info.ms;
        try {
          for (const run of vectorRuns) {
            const searcher = new Searcher({ store: idx.store, provider, config: run.config });
            await runQueries(conv, queries, searcher, idx, run, opts);
          }
        } finally {
          idx.store.close();
        }
        log(
          `${conv.id}: vector index ${idx.info.chunks} chunks (${idx.info.vectors} vectors) in ${idx.info.ms.toFixed(0)} ms`,
        );
      }
    }
  } finally {
    await provider?.close();
    if (!opts.keep) rmSync(tmp, { recursive: true, force: true });
  }
  const { log: _log, ...options } = opts;
  return {
    options,
    conversations: convs.map((c) => ({ id: c.id, queries: c.queries.length, turns: c.turnIds.length })),
    modes: opts.modes.map((m) => runs.get(m)!),
    indexes,
    ...(providerInfo ? { provider: providerInfo } : {}),
    notes,
    totalMs: performance.now() - t0,
    tmpDir: tmp,
  };
}
