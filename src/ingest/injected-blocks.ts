/**
 * The blocks memory engines inject into a conversation (cortexd's recall, recovery and checkpoint;
 * OpenClaw's and other plugins' recalled memories). They are not what the user or agent said:
 * transcripts and captures leave them out, so a memory is never stored again as a new one.
 */
export const INJECTED_BLOCK_TAGS = [
  "cortex_memories",
  "cortex_recovery",
  "cortex_checkpoint",
  "relevant-memories",
  "memory-context",
] as const;

/** A block of one of `tags` with its content; an unclosed block runs to the end of the text. */
export function blocksPattern(tags: readonly string[]): RegExp {
  return new RegExp(`<(${tags.join("|")})\\b[^>]*>[\\s\\S]*?(?:<\\/\\1\\s*>|$)`, "gi");
}
