import { countTokens } from "../ingest/tokens.js";
import type { RecallResult, RecalledMemory } from "../rpc/protocol.js";
import { formatRecallBlock, RECALL_CLOSE, RECALL_NOTE, RECALL_OPEN } from "./recall-format.js";
import { labelSources } from "./recall-source.js";

export interface RecallSource {
  name: string;
  shared?: boolean;
}

/**
 * Recall from a personal workspace also brings in the team's (shared) workspaces: each is recalled
 * on its own (its own index, the same budget), every memory is labelled with where it came from,
 * and the best of all of them, by score, are packed into the one budget. Without shared workspaces
 * (or when the personal workspace is itself shared) this is the workspace's recall, labelled.
 */
export async function recallWithShared<W extends RecallSource>(
  primary: W,
  shared: readonly W[],
  budgetTokens: number,
  run: (ws: W) => Promise<RecallResult>,
): Promise<RecallResult> {
  const own = labelSources(primary, await run(primary));
  if (shared.length === 0 || primary.shared) return own;
  const others = await Promise.all(shared.map(async (ws) => labelSources(ws, await run(ws))));
  const entries: { memory: RecalledMemory; line: string; order: number }[] = [];
  for (const res of [own, ...others]) {
    const lines = memoryLines(res);
    if (!lines) return own; // a block this module cannot split: the personal recall alone, never a wrong one
    res.memories.forEach((memory, i) => entries.push({ memory, line: lines[i]!, order: entries.length }));
  }
  entries.sort((a, b) => b.memory.score - a.memory.score || a.order - b.order);
  let used = countTokens([RECALL_OPEN, RECALL_NOTE, RECALL_CLOSE].join("\n"));
  const kept: typeof entries = [];
  for (const e of entries) {
    const cost = countTokens(e.line) + 1;
    if (used + cost > budgetTokens) continue;
    kept.push(e);
    used += cost;
  }
  return {
    context: formatRecallBlock(kept.map((k) => k.line)),
    memories: kept.map((k) => k.memory),
    memory_count: kept.length,
    tokens_used: kept.length ? used : 0,
    // The personal workspace's explanation and stage timings (the team's recalls are extra).
    ...(own.explain ? { explain: own.explain } : {}),
    ...(own.timings ? { timings: own.timings } : {}),
  };
}

/** The block's memory lines, one per memory, or null when the block does not have that shape. */
function memoryLines(res: RecallResult): string[] | null {
  if (res.memories.length === 0) return [];
  const lines = res.context.split("\n");
  if (lines[0] !== RECALL_OPEN || lines[1] !== RECALL_NOTE || lines.at(-1) !== RECALL_CLOSE) return null;
  const inner = lines.slice(2, -1);
  return inner.length === res.memories.length ? inner : null;
}
