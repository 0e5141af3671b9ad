import type { RecallResult } from "../rpc/protocol.js";
import { BLOCK_TOKENS, recallBlock, type RecallLine, type RecallLines } from "./recall-format.js";
import { labelSources } from "./recall-source.js";

export interface RecallSource {
  name: string;
  shared?: boolean;
}

/**
 * Recall from a personal workspace also brings in the team's (shared) workspaces: each is recalled
 * on its own (its own index, the same budget), every memory is labelled with where it came from,
 * and the best of all of them, by score, are packed into the one budget. The merge works on the
 * recalls' lines, each with its cost as its recall counted it (a team line's label included); the
 * block is formatted once, at the end (recall-format.ts). Without shared workspaces (or when the
 * personal workspace is itself shared) this is the workspace's recall, labelled.
 */
export async function recallWithShared<W extends RecallSource>(
  primary: W,
  shared: readonly W[],
  budgetTokens: number,
  run: (ws: W) => Promise<RecallLines>,
): Promise<RecallResult> {
  const own = labelSources(primary, await run(primary));
  if (shared.length === 0 || primary.shared) return recallBlock(own);
  const others = await Promise.all(shared.map(async (ws) => labelSources(ws, await run(ws))));
  const entries: { line: RecallLine; order: number }[] = [];
  for (const res of [own, ...others]) for (const line of res.lines) entries.push({ line, order: entries.length });
  entries.sort((a, b) => b.line.memory.score - a.line.memory.score || a.order - b.order);
  let used = BLOCK_TOKENS;
  const kept: RecallLine[] = [];
  for (const { line } of entries) {
    if (used + line.cost > budgetTokens) continue;
    kept.push(line);
    used += line.cost;
  }
  // The personal workspace's explanation and stage timings (the team's recalls are extra).
  return recallBlock({
    lines: kept,
    ...(own.explain ? { explain: own.explain } : {}),
    ...(own.timings ? { timings: own.timings } : {}),
  });
}
