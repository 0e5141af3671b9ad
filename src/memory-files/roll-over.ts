import { statSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_MAX_FILE_BYTES } from "../indexer/sync.js";

/**
 * A daily log past the indexer's file cap is not indexed (too-large), so a save into it would be
 * written but never found. Such a log rolls over to a continuation file of the same day,
 * `memory/2026-12-05.md` → `memory/2026-12-05.cont-2.md` (then `.cont-3.md`, …), still that day's
 * daily log for the index, search and start context. Only daily logs roll; MEMORY.md does not
 * (the save then says it is not searchable, and why).
 */

/** Room kept below the cap, so an entry appended near it does not cross it. */
const HEADROOM = 1024 * 1024;

function sizeOf(abs: string): number {
  try {
    return statSync(abs).size;
  } catch {
    return 0;
  }
}

/** The key to append to: `key` itself, or its first continuation with room under `maxBytes`. */
export function rollOver(root: string, key: string, maxBytes = DEFAULT_MAX_FILE_BYTES): string {
  if (!key.startsWith("memory/") || !key.endsWith(".md")) return key;
  const limit = Math.max(0, maxBytes - HEADROOM);
  if (sizeOf(join(root, key)) < limit) return key;
  const stem = key.slice(0, -".md".length);
  for (let n = 2; n < 1000; n++) {
    const next = `${stem}.cont-${n}.md`;
    if (sizeOf(join(root, next)) < limit) return next;
  }
  return key;
}
