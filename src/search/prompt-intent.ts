/**
 * Whether a prompt is an instruction about the work at hand ("run the tests again", "add a docstring
 * to that function please", "can you rewrite this loop with map instead?") rather than a question
 * the memory could answer. An agent gets such prompts all day; a memory that happens to hold "tests"
 * or "function" is no answer to them. An instruction that points at the past ("deploy it like last
 * time", "fix it the way we did before") or names a memory's id or code ("fix INC-4821") is a question of memory
 * after all, and recall decides as usual.
 */

/** Verbs an instruction to a coding or writing agent opens with (base form). */
const ACTION_VERBS = new Set(
  (
    "run rerun add rewrite refactor rename fix write make change update delete remove convert move format implement " +
    "create generate install uninstall commit push pull merge rebase build compile test debug optimize optimise clean " +
    "split extract replace translate simplify document lint undo revert open close bump upgrade downgrade configure " +
    "set use switch start stop restart try retry redo wrap inline sort reorder indent comment uncomment type annotate " +
    "draft edit shorten expand polish proofread reword rephrase paste insert append prepend copy duplicate port"
  ).split(" "),
);

/** Openers that ask the agent to do something ("can you", "please", "let's"). */
const REQUEST_OPENERS =
  /^(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?|please\s+|pls\s+|now\s+|let'?s\s+|go\s+and\s+)/;

/** Words that point at the past or at what is known: the memory may hold the answer. */
const PAST_REFERENCE =
  /\b(?:did|was|were|had|last\s+time|before|remember|remind|earlier|previously|used\s+to|once|ago|yesterday|decided|agreed|told|said|noted|what|when|where|which|who|why|how)\b/;

/** Whether the prompt is an instruction about the work at hand with no pointer to the past. */
export function isInstruction(prompt: string): boolean {
  const text = prompt.trim().toLowerCase();
  if (text === "" || text.length > 300) return false;
  const rest = text.replace(REQUEST_OPENERS, "");
  const first = /^[a-z]+/.exec(rest)?.[0];
  if (!first || !ACTION_VERBS.has(first)) return false;
  return !PAST_REFERENCE.test(text);
}

/**
 * Whether the prompt asks about the user's own things ("who is my boss?", "where does our team
 * meet?"), not general knowledge ("what is the capital of Australia?"): only then may its everyday
 * words be matched by other words for them (soft-words.ts).
 */
export function speaksOfOwn(prompt: string): boolean {
  return /\b(?:my|our|mine|ours)\b/i.test(prompt);
}

/** Words of a question about the past ("when did…", "what was…", "used to", "last time"). */
const ABOUT_THEN =
  /\b(?:did|didn't|was|wasn't|were|weren't|had|used\s+to|ago|last|yesterday|before|previously|originally|first|earlier|history)\b/i;

/**
 * Whether the prompt asks how things stand now ("who is on call for payments?", "is Tom still on
 * call?"), not what happened then ("when did we move CI?", "what was the old host?").
 */
export function asksAboutNow(prompt: string): boolean {
  return !ABOUT_THEN.test(prompt);
}

/** A token written as an id or code ("INC-4821", "ECONNRESET", "v0.9", "auth_service"), not a word or a plain name. */
export function namesSomething(token: string): boolean {
  return /[\p{N}_\-./#:@]/u.test(token) || /^\p{Lu}{2,}$/u.test(token);
}

/** Words after "what"/"which" that end like a plural and are none ("what does…", "which is…"). */
const NOT_PLURAL = /^(?:does|was|has|is|its|this|thus|his)$/i;

/**
 * Whether a question asks for several things gathered over time: "what activities does Melanie
 * partake in?", "which cities has Jon visited?", "what kinds of books…", "how many times…" — a plural
 * noun among the first two words after "what"/"which" (past "kinds of"), or "how many" — or for
 * what two people share ("what do Jon and Gina both have in common?", "which city have both Jean
 * and John visited?"): each one's part is said on its own day, often in words of their own. Its
 * answer is spread over many memories, each holding one of the things.
 */
export function asksForMany(prompt: string): boolean {
  if (/\bhow many\b/i.test(prompt)) return true;
  if (/\b(?:both|in common)\b/i.test(prompt)) return true;
  const m = /\b(?:what|which)\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?([\p{L}+-]+)(?:\s+([\p{L}+-]+))?/iu.exec(prompt);
  const plural = (w: string | undefined) => !!w && w.length > 3 && /(?:[^su]s|ies)$/i.test(w) && !NOT_PLURAL.test(w);
  return !!m && (plural(m[1]) || plural(m[2]));
}
