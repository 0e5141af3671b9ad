import type { SlotRow } from "../index/repos/facts-repo.js";
import { TIME_VALUE_CLASSES } from "../facts/mentions.js";
import { contentStems } from "./excerpt.js";

/**
 * A question for the value of something the prompt names ("What city is Carmen based in these
 * days?", "When do we meet for standup now?", "Which host runs the staging database?") is answered
 * by the current statement of that entity's fact — even when the statement shares no other word
 * with the question ("Carmen relocated from Munich to Madrid."). Facts over time already know which
 * of the entity's statements are current (recall-facts.ts); this module says which of its facts the
 * question asks for.
 */

/** The kind of value a question asks for: a time of day or a weekday, or a name (a place, a person, a host, a tool). */
export type AskedValue = "time" | "name";

/** A question word opening the prompt or its last clause ("…, which host is it on now?"). */
const QUESTION =
  /(?:^|[,;:]\s*)(?:(?:and|so|but|then|ok|okay|now)\s+)*(?:what|what's|which|where|where's|who|who's|whom|whose|when|when's)\b/i;
/** A question for a time: "when", "what time", "which day", "what date". */
const TIME_ASK =
  /\b(?:when|when's|what\s+time|what\s+day|which\s+day|what\s+weekday|which\s+weekday|what\s+date|which\s+date)\b/i;
/** Facts of one entity answered at most. */
const MAX_ANSWERS = 3;

/** The value a prompt asks for, or null when it is no question for a value (a yes/no question, a request). */
export function askedValue(prompt: string): AskedValue | null {
  const text = prompt.trim();
  if (text === "" || text.length > 300 || !QUESTION.test(text)) return null;
  return TIME_ASK.test(text) ? "time" : "name";
}

/**
 * Of the current statements of the changed slots (entity, class) of the entities the prompt names
 * (`named`, read only for a question for a value), those answering the question: slots of the asked
 * kind of value; among them the slots whose statements hold a word of the question besides the
 * entity's own ("Elena's manager" for "who is Elena's manager now?"), else all of them; the most
 * recently changed first, at most three.
 */
export function answeringStatements(
  prompt: string,
  named: () => readonly string[],
  current: readonly SlotRow[],
  chainOf: (row: SlotRow) => readonly SlotRow[],
): SlotRow[] {
  const asked = current.length > 0 ? askedValue(prompt) : null;
  if (asked === null) return [];
  const names = named();
  const ofKind = current.filter(
    (r) => names.includes(r.entity) && TIME_VALUE_CLASSES.has(r.cls) === (asked === "time"),
  );
  if (ofKind.length === 0) return [];
  const promptStems = contentStems(prompt);
  const said = (r: SlotRow) => {
    const own = new Set(contentStems(r.entity));
    const words = promptStems.filter((s) => !own.has(s));
    if (words.length === 0) return false;
    const held = new Set(chainOf(r).flatMap((c) => contentStems(c.text)));
    return words.some((s) => held.has(s));
  };
  const saying = ofKind.filter(said);
  return (saying.length > 0 ? saying : ofKind)
    .sort((a, b) => (b.at ?? -Infinity) - (a.at ?? -Infinity))
    .slice(0, MAX_ANSWERS);
}
