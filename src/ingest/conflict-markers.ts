/**
 * Git conflict markers in a memory file (a merge that stopped with a conflict):
 *
 *     <<<<<<< HEAD
 *     our lines
 *     ||||||| base        (diff3 style only)
 *     the common ancestor's lines
 *     =======
 *     their lines
 *     >>>>>>> 1a2b3c4 (their commit)
 *
 * Only a whole block in this order counts, so a markdown heading underlined with "=======" is not a
 * conflict. For the index, the markers (and a diff3 base section) become empty lines and a line of
 * theirs that ours already has is emptied too: both sides are searchable, once each, and every other
 * line keeps its line number (memory.get and the reported lines stay right).
 */

const OPEN = /^<{7}(?: |$)/;
const BASE = /^\|{7}(?: |$)/;
const SPLIT = /^={7}\s*$/;
const CLOSE = /^>{7}(?: |$)/;

export interface ConflictScan {
  /** Conflict blocks found (0: the file is clean). */
  blocks: number;
  /** The text with markers, base sections and theirs-duplicates emptied (the same number of lines). */
  text: string;
}

/** True when the text holds at least one whole conflict block. Cheap when there is no `<<<<<<<`. */
export function hasConflictMarkers(text: string): boolean {
  if (!text.includes("<<<<<<<")) return false;
  return scanConflicts(text).blocks > 0;
}

/** Finds the conflict blocks and returns the text as the index should see it. */
export function scanConflicts(text: string): ConflictScan {
  if (!text.includes("<<<<<<<")) return { blocks: 0, text };
  const lines = text.split("\n");
  let blocks = 0;
  for (let i = 0; i < lines.length; i++) {
    if (!OPEN.test(lines[i]!.replace(/\r$/, ""))) continue;
    const block = findBlock(lines, i);
    if (!block) continue;
    blocks++;
    const ours = new Set<string>();
    for (let j = i + 1; j < (block.base ?? block.split); j++) ours.add(lines[j]!.trim());
    lines[i] = "";
    if (block.base !== undefined) for (let j = block.base; j < block.split; j++) lines[j] = "";
    lines[block.split] = "";
    for (let j = block.split + 1; j < block.close; j++) if (ours.has(lines[j]!.trim())) lines[j] = "";
    lines[block.close] = "";
    i = block.close;
  }
  return { blocks, text: blocks ? lines.join("\n") : text };
}

/** The marker lines of the block opening at `open`, or null when it is not a whole block. */
function findBlock(lines: readonly string[], open: number): { base?: number; split: number; close: number } | null {
  let base: number | undefined;
  let split: number | undefined;
  for (let j = open + 1; j < lines.length; j++) {
    const l = lines[j]!.replace(/\r$/, "");
    if (OPEN.test(l)) return null; // a second opening before this one closed: not git's shape
    if (split === undefined && base === undefined && BASE.test(l)) base = j;
    else if (split === undefined && SPLIT.test(l)) split = j;
    else if (split !== undefined && CLOSE.test(l)) return { ...(base !== undefined ? { base } : {}), split, close: j };
  }
  return null;
}

/** The issue reason for a conflicted file (status shows it with conflictFix). */
export function conflictReason(path: string, blocks: number): string {
  return `${blocks} git conflict block${blocks > 1 ? "s" : ""} in ${path} (an unfinished merge): indexed without the markers, each side once`;
}
