/**
 * What a conversation turn says of its speaker. A turn listed for a question gathering someone's
 * doings (recall-turns.ts) is there for what that person did or has; its other sentences — a short
 * question put to the other speaker ("How have you been?") or a short reaction to them ("Wow,
 * that's cool, Mel!", "Good to see you!") — take the budget that more turns could use. The gist
 * keeps the turn's label, its bracketed parts (a shared photo's caption) and every sentence that
 * speaks in the first person ("I", "my", "we"), holds one of the question's words, or is longer;
 * a left-out run is shown as "…". A turn that would keep nothing is shown whole: the gist never
 * empties a turn. (Keeping only each turn's most specific sentence fits more turns, but leaves out
 * what many of them say: docs/recall.md, issue #29.)
 */
import { contentStems } from "./excerpt.js";
import { INTERJECTIONS, isFrameWord } from "./frame-words.js";
import { labelLength } from "./recall-speakers.js";
import { lowerWords } from "../util/word-chars.js";

/** The words of speaking of oneself ("I'm" is "i" and "m" as words). */
const FIRST_PERSON = new Set(["i", "im", "ive", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves"]);
/** The tails of contractions, words of their own once the apostrophe splits them ("that's", "you've"). */
const CONTRACTION_TAILS = new Set(["s", "t", "m", "d", "ll", "ve", "re"]);
/** Praise that answers what the other said ("awesome!", "so glad"), rarer than the frame words. */
const PRAISE = new Set([
  ..."awesome amazing glad fantastic incredible adorable lovely".split(" "),
  ..."exciting stunning gorgeous cute brilliant terrific".split(" "),
]);
/**
 * What makes a short sentence a reaction to the other speaker rather than a terse statement ("Just
 * got new shoes!"): an interjection, a greeting or thanks, praise, or speaking to them ("you").
 */
const REACTION = new Set([
  ...INTERJECTIONS,
  ..."thanks thank cool great nice sweet good you your yours yourself ya u".split(" "),
  ...PRAISE,
]);
/** A question or reaction left out is at most this many words: a longer one can still tell something. */
const SHORT = 6;
/** A sentence ends at . ! ? or … (closing quotes and brackets kept with it) before a space. */
const SENTENCE_END = /(?<=[.!?…]["'”’)]*)\s+/u;
/** A sentence ending in a question mark (closing quotes and brackets after it). */
const QUESTION = /\?["'”’)]*$/u;
/**
 * A capital-led word addressed to someone, alone before a stop: after a comma ("Thanks, Mel!") or
 * second in the sentence ("Thanks Maria!", "Wow John, …"; the opener is kept).
 */
const VOCATIVE = /,\s*\p{Lu}[\p{L}\p{M}'’-]*(?=[,!.?]|$)|^(\p{L}+,?\s+)\p{Lu}[\p{L}\p{M}'’-]*(?=[,!.?]|$)/gu;

/** Whether a sentence says nothing of its speaker and nothing the question asks about. */
function saysNothing(sentence: string, queryStems: ReadonlySet<string>): boolean {
  const words = lowerWords(sentence);
  if (words.length === 0 || words.length > SHORT) return false;
  if (words.some((w) => FIRST_PERSON.has(w))) return false;
  if (contentStems(sentence).some((st) => queryStems.has(st))) return false;
  if (QUESTION.test(sentence)) return true;
  const unnamed = lowerWords(sentence.replace(VOCATIVE, (_, opener: string | undefined) => ` ${opener ?? ""}`));
  const addressed = unnamed.length < words.length || unnamed.some((w) => REACTION.has(w));
  return addressed && unnamed.every((w) => isFrameWord(w) || PRAISE.has(w) || CONTRACTION_TAILS.has(w));
}

/** The gist of a turn (see above) for a question of `queryStems` (its content stems). */
export function turnGist(text: string, queryStems: ReadonlySet<string>): string {
  const label = labelLength(text);
  // Odd parts are bracketed: a caption stays whole.
  const parts = text.slice(label).split(/(\[[^\]\n]*\])/u);
  const kept: string[] = [];
  let dropped = false;
  let said = false;
  for (const [i, part] of parts.entries()) {
    for (const piece of i % 2 === 1 ? [part] : part.split(SENTENCE_END)) {
      const s = piece.trim();
      if (s === "") continue;
      if (i % 2 === 0 && saysNothing(s, queryStems)) {
        if (kept[kept.length - 1] !== "…") kept.push("…");
        dropped = true;
      } else {
        kept.push(s);
        said = true;
      }
    }
  }
  return dropped && said ? text.slice(0, label) + kept.join(" ") : text;
}
