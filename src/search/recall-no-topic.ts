import type { RecallConfig } from "../config/schema.js";
import type { IndexStore } from "../index/repos/store.js";
import type { RecallRequest } from "./recall.js";
import { topicWords } from "./relevance.js";
import type { Searcher } from "./searcher.js";

/**
 * Whether a memory's keyword hits can be evidence for the relevance decision: not for a prompt
 * without a topic word ("ok, do it", "what is it?", relevance.ts topicWords), whose words are in
 * nearly every chunk and weigh nothing; a date window (answered from its memories) or relevance
 * "off" (every candidate kept) takes them as they come. At a million chunks the keyword leg of such
 * a prompt ranks lists that hold nearly every chunk: an agent's every "yes" would pay for it.
 */
export function keywordCounts(
  req: Pick<RecallRequest, "query">,
  cfg: Pick<RecallConfig, "relevance">,
  windows: readonly unknown[],
): boolean {
  return cfg.relevance === "off" || windows.length > 0 || topicWords(req.query).length > 0;
}

/**
 * Whether the relevance decision must answer nothing whatever the search finds, so that the search
 * is not run: no keyword evidence can count (keywordCounts) and there is no other — keyword-only,
 * or no vectors indexed yet. Explain still searches (it shows the candidates).
 */
export function nothingCanMatch(
  req: Pick<RecallRequest, "query" | "explain">,
  cfg: Pick<RecallConfig, "relevance">,
  windows: readonly unknown[],
  searcher: Pick<Searcher, "provider">,
  store: Pick<IndexStore, "vectorDims">,
): boolean {
  if (req.explain) return false;
  if (searcher.provider && store.vectorDims !== null) return false;
  return !keywordCounts(req, cfg, windows);
}
