import type { Unit } from "../ingest/units.js";
import { stem } from "./excerpt.js";
import { isFrameWord } from "./frame-words.js";

/**
 * Who says a line of a conversation: a chat log or meeting notes write each turn as `Name: text`
 * (`[D1:3] Caroline: …`, `- 10:30 Alice Chen: …`, a transcript message `User: [D1:3] Caroline: …`).
 * A question about one of the speakers is answered by what that speaker said — "I just signed up
 * for a pottery class" is about Melanie because Melanie says it, though it never names her.
 */
const SPEAKER =
  /^\s*(?:(?:User|Assistant):\s+)?(?:[-*+]\s+)?(?:\[[^\]\n]{1,32}\]\s*)?(?:\d{1,2}:\d{2}(?::\d{2})?\s+)?(\p{Lu}[\p{L}\p{M}'’.-]{1,30}(?: \p{Lu}[\p{L}\p{M}'’.-]{1,30}){0,2}):\s/u;

/** The speaker label a unit opens with, or null. */
export function speakerOf(text: string): string | null {
  return SPEAKER.exec(text)?.[1] ?? null;
}

/** Where a turn's words begin: the length of its label (`[D1:3] Caroline: `), or 0 without one. */
export function labelLength(text: string): number {
  return SPEAKER.exec(text)?.[0].length ?? 0;
}

/**
 * The capitalised words a prompt names someone by ("Caroline", "Caroline's" → "Caroline"): a word a
 * sentence opens with counts only when it is no common English word ("What", "Did", "Note").
 */
export function promptNames(query: string): Set<string> {
  const out = new Set<string>();
  const re = /(^|[.!?]\s+|\s|["'(“‘])(\p{Lu}[\p{L}\p{M}-]*)(?:['’]s)?/gu;
  for (let m = re.exec(query); m !== null; m = re.exec(query)) {
    const word = m[2]!;
    const opensSentence = m.index === 0 || /[.!?]\s+$/.test(m[1]!) || query.slice(0, m.index).trim() === "";
    if (opensSentence && isFrameWord(word.toLowerCase())) continue;
    out.add(word);
  }
  return out;
}

/** Whether a speaker label is named by the prompt: one of its words ("Alice" of "Alice Chen"). */
function isNamed(label: string, names: ReadonlySet<string>): boolean {
  return label.split(" ").some((w) => names.has(w));
}

/**
 * The units of a conversation chunk said by speakers the prompt does not name, when it names some
 * of the chunk's speakers and not all: a question about Melanie shows Melanie's turns. A chunk is a
 * conversation when at least two labels each open two units or more (a list with one "Note:" is
 * none). A line of another speaker still shows when it holds a word of the query (`holds`): an
 * answer to a question the named speaker asked. Empty when nothing is to be left out.
 */
export function otherSpeakers(
  units: readonly Unit[],
  names: ReadonlySet<string>,
  holds: (i: number) => boolean,
): Set<Unit> {
  const out = new Set<Unit>();
  if (names.size === 0) return out;
  const labels = units.map((u) => speakerOf(u.text));
  const counts = new Map<string, number>();
  for (const l of labels) if (l) counts.set(l, (counts.get(l) ?? 0) + 1);
  const speakers = [...counts].filter(([, n]) => n >= 2).map(([l]) => l);
  if (speakers.length < 2) return out;
  const named = speakers.filter((s) => isNamed(s, names));
  if (named.length === 0 || named.length === speakers.length) return out;
  const keep = new Set(named);
  units.forEach((u, i) => {
    const l = labels[i];
    if (l && counts.get(l)! >= 2 && !keep.has(l) && !holds(i)) out.add(u);
  });
  return out;
}

/**
 * The positions of the units of a conversation chunk said by a speaker the prompt names (a
 * conversation as otherSpeakers has it: two labels or more, each opening two units or more).
 */
export function namedSpeakerTurns(units: readonly Unit[], names: ReadonlySet<string>): number[] {
  if (names.size === 0) return [];
  const labels = units.map((u) => speakerOf(u.text));
  const counts = new Map<string, number>();
  for (const l of labels) if (l) counts.set(l, (counts.get(l) ?? 0) + 1);
  if ([...counts.values()].filter((n) => n >= 2).length < 2) return [];
  const out: number[] = [];
  labels.forEach((l, i) => {
    if (l && counts.get(l)! >= 2 && isNamed(l, names)) out.push(i);
  });
  return out;
}

const NONE: ReadonlySet<Unit> = new Set();

/**
 * For one prompt, the turns of each candidate to leave out (otherSpeakers): a turn of a speaker the
 * prompt does not name still shows when it holds one of the query's words other than a name
 * (`held`: the query stems each unit holds; "Wow, Melanie!" is no answer about Melanie).
 */
export function unnamedTurns(
  query: string,
): (scanned: { units: readonly Unit[]; held: readonly ReadonlySet<string>[] }) => ReadonlySet<Unit> {
  const names = promptNames(query);
  if (names.size === 0) return () => NONE;
  const nameStems = new Set([...names].map((n) => stem(n)));
  return ({ units, held }) => otherSpeakers(units, names, (i) => [...held[i]!].some((st) => !nameStems.has(st)));
}
