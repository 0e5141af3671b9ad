import type { IndexStore } from "../index/repos/store.js";
import type { SearchHit } from "./types.js";

/**
 * Search's explain, facts over time: each result's entities and which of its statements superseded
 * which (or were superseded), as the sync linked them (src/facts). Bounded: a few rows per result.
 */
export function explainFacts(store: IndexStore, hits: SearchHit[]): void {
  for (const h of hits) {
    const entities = store.facts.entitiesAt(h.path, h.startLine);
    const links = store.facts.linksAt(h.path, h.startLine, h.endLine);
    if (entities.length > 0 || links.length > 0) h.facts = { entities, links };
  }
}
