import type { IndexStore } from "../index/repos/store.js";
import type { AnnotatedHit } from "../consolidate/annotate.js";

/** What of a recall request says which memories it may show. */
export interface RecallScope {
  scope?: "private" | "group";
  excludeCurated?: boolean;
  sources?: readonly ("files" | "transcripts")[];
  excludePath?: (path: string) => boolean;
  visible?: readonly string[];
}

/**
 * Whether a memory may be shown by this request: not curated for a group or when curated files are
 * excluded, not a path the host already has, from the asked sources. The search's hits are already of
 * the visible visibilities; a memory that did not come from the search (a current statement facts over
 * time add, recall-facts.ts) is asked too (`checkVisibility`): one read of its lines' chunks.
 */
export function mayShow(
  store: IndexStore,
  req: RecallScope,
): (hit: AnnotatedHit, checkVisibility?: boolean) => boolean {
  const from = req.sources ? new Set(req.sources) : null;
  const visible = req.visible ? new Set(req.visible) : null;
  return (hit, checkVisibility = false) => {
    if ((req.scope === "group" || req.excludeCurated) && hit.source === "curated") return false;
    if (req.excludePath?.(hit.path)) return false;
    if (from && !from.has(hit.source === "transcript" ? "transcripts" : "files")) return false;
    if (!visible || !checkVisibility) return true;
    const [of] = store.visibility.ofSpans([{ path: hit.path, from: hit.startLine, to: hit.endLine }]);
    return of!.length > 0 && of!.every((v) => visible.has(v));
  };
}
