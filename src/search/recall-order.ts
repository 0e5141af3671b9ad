/**
 * The order of a recalled block for a prompt about someone or something: what a memory says of a
 * person, a service or a team can change, and the newest statement is the one that holds. The
 * memories that name one of the prompt's specific entities (search/entity-leg.ts `promptEntities`)
 * are shown newest first — an undated curated line as the oldest, the file's own history being all
 * there is — in the places those memories already hold; every other memory keeps its place. The
 * same memories within the same budget: only their order changes.
 * Among them, those speaking of what the prompt asks come first ("Where does Leo live?": "Leo …
 * lives in Milan these days" before the newer "Leo asked about search ranking").
 *
 * Not for a prompt about a past window (its memories are that time's), and not for a block shown
 * in time order already (a window without a topic).
 */
import { asksAboutNow } from "./prompt-intent.js";
import { heldStems, holdsEvery, type PromptWord } from "./relevance.js";
import { askedValue } from "./fact-answers.js";
import { saysChange } from "../facts/mentions.js";

/**
 * An entity named in more than this share of the chunks is what the whole workspace is about (its
 * owner, the two speakers of a chat): a block about it is not reordered by time.
 */
export const SUBJECT_SHARE = 0.25;

export interface Orderable {
  text: string;
  /** YYYY-MM-DD; none: an undated (curated) memory. */
  date?: string | undefined;
}

/** A memory as newestFirstFor reads it. */
export interface OrderView extends Orderable {
  /** The prompt words its whole chunk holds (its evidence). */
  chunkWords: readonly string[];
  /** It states the current value the question asks for (search/fact-answers.ts). */
  answer?: boolean;
}

/**
 * A block's order for a prompt about someone or something: the memories naming one of its entities
 * newest first, those on the prompt's topic (onTopic) before the other mentions; then, for a prompt
 * about how things stand now (prompt-intent.ts `asksAboutNow`), the memories whose shown text holds
 * every word of the prompt the index holds (two at least), newest first; and, for a question for a
 * value, the memories holding its topic newest first when the newest of them says the thing changed
 * (one word is enough then: "who is my manager?").
 */
export function newestFirstFor<T>(
  items: readonly T[],
  prompt: { query: string; entities: readonly string[]; words: readonly PromptWord[] },
  view: (t: T) => OrderView,
): T[] {
  const indexed = prompt.words.filter((w) => w.df > 0);
  const out = newestFirstAbout(items, prompt.entities, view, onTopic(items, prompt.entities, indexed, view));
  if (indexed.length === 0 || !asksAboutNow(prompt.query)) return out;
  const holding = (words: readonly PromptWord[]) => (t: T) => {
    const v = view(t);
    return holdsEvery(v.text, v.chunkWords, words);
  };
  // One shared word is no sign that two memories speak of one thing ("deploys": the rule and a later failed deploy).
  const ordered = indexed.length >= 2 ? newestFirstOf(out, holding(indexed), view) : out;
  // Unless the newest of them says that the thing changed, and the prompt asks for a value: "who is
  // my manager?" — "my new manager is Oksana" after the curated "My manager is Dana". The topic is
  // the prompt's words that are no frequent English words, if any ("tickets"), else all ("manager").
  const content = indexed.some((w) => !w.frame) ? indexed.filter((w) => !w.frame) : indexed;
  if (content.length === 0 || askedValue(prompt.query) === null) return ordered;
  const holds = holding(content);
  let newest: T | undefined;
  for (const t of ordered) if (holds(t) && (view(t).date ?? "") > (newest ? (view(newest).date ?? "") : "")) newest = t;
  if (!newest || !changedIn(view(newest).text, content)) return ordered;
  return newestFirstOf(ordered, holds, view);
}

/** Whether a line of a memory's text holding every one of the words says that something changed. */
function changedIn(text: string, words: readonly PromptWord[]): boolean {
  return text.split("\n").some((line) => {
    const held = heldStems(line, { words });
    return words.every((w) => held.has(w.stem)) && saysChange(line);
  });
}

/**
 * Which of the memories naming the prompt's entities speak of what it asks, and so come before the
 * entity's other, newer mentions ("Where does Leo live?": "Leo … lives in Milan these days" before
 * "Leo asked about search ranking"): those holding a word of the prompt beside the names that is no
 * frequent English word ("manager"), and the one the facts read as stating the current value asked
 * for, if it holds a word of the prompt beside the names ("live"; or the index holds none of them:
 * "what town is Leo in?") and no later memory of the entity says that something changed
 * (leadingAnswer). Within each part, newest first still.
 */
function onTopic<T>(
  items: readonly T[],
  entities: readonly string[],
  indexed: readonly PromptWord[],
  view: (t: T) => OrderView,
): (t: T) => boolean {
  const keys = entityKeys(entities);
  const besideNames = indexed.filter((w) => !keys.some((k) => k.includes(` ${w.word} `)));
  const topic = besideNames.filter((w) => !w.frame);
  const holdsOne = (v: OrderView, words: readonly PromptWord[]) =>
    words.some((w) => holdsEvery(v.text, v.chunkWords, [w]));
  const answer = leadingAnswer(items, namesOneOf(keys, view), view);
  return (t) => {
    const v = view(t);
    if (holdsOne(v, topic)) return true;
    return answer(t) && (besideNames.length === 0 || holdsOne(v, besideNames));
  };
}

/**
 * Whether a memory is the facts' answer to the question and may lead the memories `about` the same
 * thing: no later one of them says that something changed (the facts may not have tied that change
 * to it: "Grace has moved to Rotterdam" after "Grace lives in Ghent").
 */
function leadingAnswer<T>(items: readonly T[], about: (t: T) => boolean, view: (t: T) => OrderView): (t: T) => boolean {
  let lastChange = "";
  for (const t of items) {
    const v = view(t);
    if ((v.date ?? "") > lastChange && about(t) && v.text.split("\n").some(saysItChanged)) lastChange = v.date ?? "";
  }
  return (t) => view(t).answer === true && !(lastChange > (view(t).date ?? ""));
}

/**
 * Whether a line says that something changed, by more than a passing "now" or "new" ("Elena owns
 * the export pipeline now" is news of another kind than "Grace has moved to Rotterdam").
 */
function saysItChanged(line: string): boolean {
  return saysChange(line.replace(/\b(?<!from )now\b|\bnew\b/gi, " "));
}

/** Lowercase words joined by single spaces, with a space at each end: whole-word containment. */
function spaced(text: string): string {
  return ` ${text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()} `;
}

export function newestFirstAbout<T>(
  items: readonly T[],
  entities: readonly string[],
  view: (t: T) => Orderable,
  onTopic?: (t: T) => boolean,
): T[] {
  const keys = entityKeys(entities);
  if (keys.length === 0) return [...items];
  return newestFirstOf(items, namesOneOf(keys, view), view, onTopic);
}

/** The entities as spaced keys (whole-word containment). */
function entityKeys(entities: readonly string[]): string[] {
  return entities.map(spaced).filter((k) => k.trim() !== "");
}

/** Whether a memory's shown text names one of these spaced keys. */
function namesOneOf<T>(keys: readonly string[], view: (t: T) => Orderable): (t: T) => boolean {
  return (t) => {
    const text = spaced(view(t).text);
    return keys.some((k) => text.includes(k));
  };
}

/**
 * The memories that `about` picks, newest first (undated last) in the places they hold, those that
 * `first` picks (if given) before the others; every other memory keeps its place. For a prompt
 * about how things stand now, the memories holding every word of the prompt speak of one thing
 * ("who is on call for payments?": the curated "Tom is the on-call lead for payments" and the later
 * log "Ines takes over as on-call lead for payments"): the newest statement of it first.
 */
export function newestFirstOf<T>(
  items: readonly T[],
  about: (t: T) => boolean,
  view: (t: T) => Orderable,
  first?: (t: T) => boolean,
): T[] {
  if (items.length < 2) return [...items];
  const picked: number[] = [];
  items.forEach((t, i) => {
    if (about(t)) picked.push(i);
  });
  if (picked.length < 2) return [...items];
  const tier = (t: T) => (first && !first(t) ? 1 : 0);
  // Newest first; undated last; ties keep the block's order (Array.prototype.sort is stable).
  const newest = picked
    .map((i) => items[i]!)
    .sort((a, b) => tier(a) - tier(b) || (view(b).date ?? "").localeCompare(view(a).date ?? ""));
  const out = [...items];
  picked.forEach((place, n) => (out[place] = newest[n]!));
  return out;
}
