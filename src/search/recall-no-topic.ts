import type { RecallConfig } from "../config/schema.js";
import type { IndexStore } from "../index/repos/store.js";
import type { RecallRequest } from "./recall.js";
import { topicWords } from "./relevance.js";
import type { Searcher } from "./searcher.js";

/**
 * Whether the relevance decision must answer nothing whatever the search finds, so that the search
 * is not run: a prompt without a topic word ("ok, do it", "what is it?", relevance.ts topicWords)
 * gives no memory keyword evidence, and without vectors (keyword-only, or none indexed yet) there
 * is no other; a date window (answered from its memories) or relevance "off" (every candidate kept)
 * still searches, and so does explain (it shows the candidates). At a million chunks the search of
 * such a prompt ranks lists that hold nearly every chunk: an agent's every "yes" paid for it.
 */
export function nothingCanMatch(
  req: Pick<RecallRequest, "query" | "explain">,
  cfg: Pick<RecallConfig, "relevance">,
  windows: readonly unknown[],
  searcher: Pick<Searcher, "provider">,
  store: Pick<IndexStore, "vectorDims">,
): boolean {
  if (req.explain || cfg.relevance === "off" || windows.length > 0) return false;
  if (searcher.provider && store.vectorDims !== null) return false;
  return topicWords(req.query).length === 0;
}
