/**
 * Frame words: the most frequent English words ("look", "fix", "time", "happened", "working"). A
 * prompt is framed by them ("the invoices look garbled again, what was the fix last time?") and
 * about its other words; a memory that lacks a frame word is no less about the prompt's topic.
 * The list is the general-English frequency order of the built-in model's source (common-words.ts).
 */
import { COMMON_WORDS } from "./common-words.js";

const FRAME = new Set(COMMON_WORDS);

/** Whether a lowercase word is one of the most frequent English words. */
export function isFrameWord(word: string): boolean {
  return FRAME.has(word);
}
