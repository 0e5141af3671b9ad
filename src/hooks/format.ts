/** Claude Code caps injected hook output at 10,000 characters. */
export const MAX_CONTEXT_CHARS = 10_000;

/**
 * Caps a context block at max characters. A <cortex_memories>/<cortex_recovery> block loses whole
 * memory lines from the end and keeps its closing tag; anything else is cut.
 */
export function capContext(text: string, max = MAX_CONTEXT_CHARS): string {
  if (text.length <= max) return text;
  const blocks = text.split(/\n\n(?=<cortex_)/);
  const out: string[] = [];
  let used = 0;
  for (const block of blocks) {
    const room = max - used - (out.length ? 2 : 0);
    if (room <= 0) break;
    const capped = capBlock(block, room);
    if (!capped) break;
    out.push(capped);
    used += capped.length + (out.length > 1 ? 2 : 0);
  }
  return out.join("\n\n");
}

function capBlock(block: string, max: number): string {
  if (block.length <= max) return block;
  const m = /^<(cortex_[a-z_]+)>\n/.exec(block);
  if (!m) return block.slice(0, Math.max(0, max - 1)) + "…";
  const close = `</${m[1]}>`;
  const lines = block.split("\n");
  const body = lines.slice(1, lines[lines.length - 1] === close ? -1 : undefined);
  const kept = [lines[0]!];
  let used = lines[0]!.length + 1 + close.length;
  for (const line of body) {
    if (used + line.length + 1 > max) break;
    kept.push(line);
    used += line.length + 1;
  }
  if (kept.length === 1) return "";
  kept.push(close);
  return kept.join("\n");
}

/** The one JSON object Claude Code reads from a context hook's stdout. */
export function claudeContextOutput(hookEventName: "UserPromptSubmit" | "SessionStart", context: string): string {
  return JSON.stringify({ hookSpecificOutput: { hookEventName, additionalContext: capContext(context) } });
}

/** The generic Cortex pre-turn shape (empty form when the daemon is down). */
export function preTurnOutput(r?: { context: string; memory_count: number; tokens_used: number }): string {
  return JSON.stringify({
    context: r?.context ?? "",
    memory_count: r?.memory_count ?? 0,
    tokens_used: r?.tokens_used ?? 0,
  });
}

export function postTurnOutput(stored: boolean): string {
  return JSON.stringify({ stored });
}
