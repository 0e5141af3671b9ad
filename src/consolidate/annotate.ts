import type { IndexStore } from "../index/repos/store.js";
import type { SearchHit } from "../search/types.js";
import { marksFor } from "./state.js";

/** A hit with what consolidation knows about it. */
export type AnnotatedHit = SearchHit & {
  /** Entries in its duplicate group (the same memory written this many times). */
  duplicates?: number;
  /** Similar entries elsewhere (0.80 ≤ cosine < 0.92). */
  reinforced?: number;
  /** Set when a newer entry states a different value for the same subject. */
  supersededBy?: string;
  validTo?: string;
};

/**
 * The recall hook: one hit per duplicate group (shown at the newest entry's location, with the
 * group size), superseded entries dropped unless `includeHistory` (then kept and marked); with
 * `asOf` (YYYY-MM-DD) only those superseded on or before that day. Hits
 * need their chunk hash (search with fullText). Order is kept.
 */
export function applyConsolidation(
  store: IndexStore,
  hits: readonly SearchHit[],
  opts: { includeHistory?: boolean; asOf?: string } = {},
): AnnotatedHit[] {
  const marks = marksFor(
    store,
    hits.map((h) => h.hash).filter((h): h is string => !!h),
  );
  if (marks.size === 0) return [...hits];
  const seenGroups = new Set<string>();
  const out: AnnotatedHit[] = [];
  for (const hit of hits) {
    const m = hit.hash ? marks.get(hit.hash) : undefined;
    if (!m) {
      out.push(hit);
      continue;
    }
    let h: AnnotatedHit = { ...hit };
    // As of a day before the newer entry, the older one was still current.
    if (m.superseded && (!opts.asOf || m.superseded.validTo <= opts.asOf)) {
      if (!opts.includeHistory) continue;
      h.supersededBy = `${m.superseded.byPath}:${m.superseded.byStart}`;
      h.validTo = m.superseded.validTo;
    }
    if (m.duplicate) {
      const d = m.duplicate;
      if (seenGroups.has(d.canonicalHash)) continue;
      seenGroups.add(d.canonicalHash);
      h = { ...h, path: d.canonicalPath, startLine: d.canonicalStart, endLine: d.canonicalEnd, duplicates: d.size };
    }
    if (m.reinforced) h.reinforced = m.reinforced;
    out.push(h);
  }
  return out;
}

/** The memory text with what consolidation knows, for the recall block: "(superseded by …)" first, "(noted N×)" last. */
export function consolidationNote(hit: AnnotatedHit, text: string): string {
  let out = text;
  if (hit.supersededBy) out = `(superseded by ${hit.supersededBy} on ${hit.validTo}) ${out}`;
  if (hit.duplicates && hit.duplicates > 1) out = `${out} (noted ${hit.duplicates}×)`;
  return out;
}
