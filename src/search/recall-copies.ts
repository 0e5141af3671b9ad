import { conflictCopyKey } from "../workspace/conflict-copies.js";
import { SIDECAR_TAG } from "../multi-device/save-sidecar.js";

/**
 * Recall over a file and its conflict copies (a file-sync tool's `x.sync-conflict-….md`, a
 * `saved-during-conflict` sidecar): the copy repeats most of the original's lines. A line already
 * shown from one file of the family is emptied in the others; a hit left with nothing new is
 * dropped. Lines of one file are left alone (recall handles overlapping chunks itself).
 */
export interface CopyHit {
  path: string;
  snippet: string;
  text?: string;
}

const SIDECAR_SUFFIX = new RegExp(`\\.${SIDECAR_TAG}\\.md$`, "i");

/** The file a path belongs with: its original when it is a conflict copy or a sidecar, else itself. */
export function familyOf(path: string): string {
  const side = path.replace(SIDECAR_SUFFIX, ".md");
  if (side !== path) return side.replace(/^memory\/MEMORY\.md$/, "MEMORY.md");
  return conflictCopyKey(path) ?? path;
}

const isHeading = (l: string) => /^#{1,6}\s/.test(l);

export function collapseConflictCopies<T extends CopyHit>(hits: readonly T[]): T[] {
  const families = new Map<string, Set<string>>();
  for (const h of hits) {
    const f = familyOf(h.path);
    families.set(f, (families.get(f) ?? new Set()).add(h.path));
  }
  if ([...families.values()].every((paths) => paths.size < 2)) return [...hits];
  /** Per family: line → the path that showed it first. */
  const seen = new Map<string, Map<string, string>>();
  const out: T[] = [];
  for (const h of hits) {
    const fam = familyOf(h.path);
    if ((families.get(fam)?.size ?? 0) < 2) {
      out.push(h);
      continue;
    }
    let lines = seen.get(fam);
    if (!lines) seen.set(fam, (lines = new Map()));
    const text = h.text ?? h.snippet;
    // Shown lines become empty (not removed), so the hit's line numbers stay right.
    const kept = text.split("\n").map((l) => {
      const by = l.trim() ? lines.get(l.trim()) : undefined;
      return by === undefined || by === h.path ? l : "";
    });
    if (!kept.some((l) => l.trim() && !isHeading(l.trim()))) continue; // nothing the family has not shown
    for (const l of kept) if (l.trim() && !lines.has(l.trim())) lines.set(l.trim(), h.path);
    const next = kept.join("\n");
    out.push(next === text ? h : { ...h, ...(h.text !== undefined ? { text: next } : { snippet: next }) });
  }
  return out;
}
