/**
 * Frame words: the most frequent English words ("look", "fix", "time", "happened", "working"). A
 * prompt is framed by them ("the invoices look garbled again, what was the fix last time?") and
 * about its other words; a memory that lacks a frame word is no less about the prompt's topic.
 * The list is the general-English frequency order of the built-in model's source (common-words.ts).
 */
import { COMMON_WORDS } from "./common-words.js";

const FRAME = new Set(COMMON_WORDS);

/** Interjections and greetings of chat ("ugh", "btw", "hey", "yay"): a closed class of English. */
export const INTERJECTIONS: ReadonlySet<string> = new Set(
  [
    "ugh hmm hm uh um umm oh ah eh meh oops whoa wow lol btw fyi tbh imo idk pls plz",
    "hey hi hello yo yeah yep yup nope yay aww awww haha omg woah congrats thx",
  ]
    .join(" ")
    .split(" "),
);

/**
 * Chat filler the list cannot hold: contractions typed without their apostrophe ("cant", "didnt":
 * the list's "can't" is two tokens), interjections, the "-ever" words and sentence adverbs the
 * list ranks lower ("whenever", "anyway"), and the adverbs that place a question in the present
 * ("anything about the staging database lately?": rare in notes, so they would weigh the most of
 * the prompt's words). Closed classes of English.
 */
const FILLER = new Set([
  ..."cant dont didnt doesnt isnt wont wouldnt couldnt shouldnt arent wasnt werent hasnt havent hadnt aint".split(" "),
  ..."im ive youre youve youll theyre theyve thats whats whos wheres heres theres".split(" "),
  ...INTERJECTIONS,
  ..."whenever wherever whoever whomever whichever anyway anyways somehow".split(" "),
  ..."lately nowadays currently presently recently latterly anymore".split(" "),
]);

/** Whether a lowercase word is one of the most frequent English words, or chat filler. */
export function isFrameWord(word: string): boolean {
  return FRAME.has(word) || FILLER.has(word);
}
