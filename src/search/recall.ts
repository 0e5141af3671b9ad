import { countTokens } from "../ingest/tokens.js";
import type { IndexStore } from "../index/store.js";
import type { RecallResult, RecalledMemory } from "../rpc/protocol.js";
import { chunkHash, sha256 } from "../util/hash.js";
import { formatMemoryLine, formatRecallBlock, RECALL_CLOSE, RECALL_NOTE, RECALL_OPEN } from "./recall-format.js";
import type { Searcher } from "./searcher.js";
import { DEFAULT_EXCERPT, contentStems, excerpt, units, whole, type Unit } from "./excerpt.js";
import { applyConsolidation, consolidationNote, type AnnotatedHit } from "../consolidate/annotate.js";
import { wordSet } from "../memory-files/dedupe.js";
import { StageTimer } from "./stage-timer.js";
import { collapseConflictCopies } from "../sync/recall-copies.js";

export const DEFAULT_RECALL_BUDGET = 2000;
const EXCERPT = DEFAULT_EXCERPT;

export interface RecallRequest {
  query: string;
  budgetTokens?: number;
  /** group: never MEMORY.md / USER.md (private, curated). */
  scope?: "private" | "group";
  /** Candidates considered before packing (default 30). */
  limit?: number;
  /** Record access (default true): recall has this side effect, search does not. */
  record?: boolean;
  /** Also show superseded memories (marked); default: current facts only. */
  includeHistory?: boolean;
  /** Never MEMORY.md / USER.md, whatever the scope: the host already has them in its prompt. */
  excludeCurated?: boolean;
  /** Return the wall time of each stage (the search's stages, consolidation, pack, record). */
  timings?: boolean;
}

/** Word-overlap similarity |A∩B| / min(|A|,|B|): high when one memory restates the other. */
export function overlap(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let n = 0;
  for (const w of a) if (b.has(w)) n++;
  return n / Math.min(a.size, b.size);
}

/**
 * Recall: the best memories for a query that fit a token budget, formatted for a model. Near
 * duplicates (word overlap ≥ 0.75) collapse to the best-ranked one; the last memory that does not
 * fit whole is cut to the remaining budget. Records which memories were recalled for which query.
 */
export async function recall(searcher: Searcher, store: IndexStore, req: RecallRequest): Promise<RecallResult> {
  const budget = req.budgetTokens ?? DEFAULT_RECALL_BUDGET;
  const timer = new StageTimer();
  const res = await searcher.search({ query: req.query, limit: req.limit ?? 30, fullText: true, ...(req.timings ? { timings: true } : {}) });
  timer.lap("search");
  let hits: AnnotatedHit[] = res.results;
  if (req.scope === "group" || req.excludeCurated) hits = hits.filter((h) => h.source !== "curated");
  // Hook: a file and its conflict copies show each line once (sync/recall-copies.ts).
  hits = collapseConflictCopies(hits);
  hits = applyConsolidation(store, hits, { includeHistory: req.includeHistory ?? false });
  timer.lap("consolidation");
  const overhead = countTokens([RECALL_OPEN, RECALL_NOTE, RECALL_CLOSE].join("\n"));
  let used = overhead;
  // Excerpts: show the lines of each chunk that answer the query, so more memories fit the budget.
  const queryStems = new Set(contentStems(req.query));
  const unitDf = new Map<string, number>();
  let unitCount = 0;
  for (const h of hits) {
    for (const u of units(h.text ?? h.snippet)) {
      unitCount++;
      for (const st of new Set(contentStems(u.text))) if (queryStems.has(st)) unitDf.set(st, (unitDf.get(st) ?? 0) + 1);
    }
  }
  const idf = (st: string) => Math.log(1 + unitCount / (1 + (unitDf.get(st) ?? 0)));
  const shown = new Set<string>();
  const kept: { hit: AnnotatedHit; words: Set<string>; line: string; text: string; startLine: number; endLine: number }[] = [];
  for (const hit of hits) {
    if (used >= budget) break;
    const full = hit.text ?? hit.snippet;
    // The best few memories are shown whole; the rest as excerpts, so more of them fit the budget.
    // Lines (or messages) an overlapping chunk of the same file already showed are not repeated.
    const isShown = (u: Unit) => shown.has(`${hit.path}\0${u.text}`);
    const ex = kept.length >= EXCERPT.fullTop ? excerpt(full, queryStems, idf, EXCERPT, isShown) : whole(full, isShown);
    if (!ex || ex.units.length === 0) continue;
    const text = consolidationNote(hit, ex.text);
    // Markdown lines map to file lines; transcript chunk text does not (its lines are JSONL records).
    const startLine = hit.source === "transcript" ? hit.startLine : Math.min(hit.endLine, hit.startLine + ex.firstLine);
    const endLine = hit.source === "transcript" ? hit.endLine : Math.min(hit.endLine, hit.startLine + ex.lastLine);
    const w = wordSet(text);
    if (kept.some((k) => overlap(k.words, w) >= 0.75)) continue;
    let line = formatMemoryLine(hit.score, hit.path, startLine, endLine, text);
    let cost = countTokens(line) + 1;
    let finalText = text;
    if (used + cost > budget) {
      const room = budget - used - 1;
      if (room < 40) break; // not worth a fragment
      // Cut the text to the remaining budget (by characters, then verified).
      let chars = Math.floor(text.length * (room / cost));
      do {
        finalText = `${text.slice(0, chars)}…`;
        line = formatMemoryLine(hit.score, hit.path, startLine, endLine, finalText);
        cost = countTokens(line) + 1;
        chars = Math.floor(chars * 0.9);
      } while (used + cost > budget && chars > 0);
      if (used + cost > budget) break;
    }
    kept.push({ hit, words: w, line, text: finalText, startLine, endLine });
    for (const u of ex.units) shown.add(`${hit.path}\0${u.text}`);
    used += cost;
  }
  const memories: RecalledMemory[] = kept.map((k) => ({
    path: k.hit.path,
    startLine: k.startLine,
    endLine: k.endLine,
    score: k.hit.score,
    text: k.text,
    ...(k.hit.duplicates ? { duplicates: k.hit.duplicates } : {}),
    ...(k.hit.supersededBy ? { supersededBy: k.hit.supersededBy } : {}),
  }));
  timer.lap("pack");
  if (req.record !== false && kept.length > 0) {
    try {
      store.recordRecalls(
        sha256(req.query.trim().toLowerCase()),
        kept.map((k) => ({ hash: k.hit.hash ?? chunkHash(k.hit.text ?? ""), path: k.hit.path, startLine: k.hit.startLine, endLine: k.hit.endLine })),
      );
    } catch {
      // The access log only feeds promotion: a full or read-only disk must not cost the agent its recall.
    }
  }
  timer.lap("record");
  const timings = req.timings && res.timings ? { ...res.timings, ...timer.result() } : undefined;
  return {
    context: formatRecallBlock(kept.map((k) => k.line)),
    memories,
    memory_count: memories.length,
    tokens_used: kept.length ? used : 0,
    ...(timings ? { timings } : {}),
  };
}
