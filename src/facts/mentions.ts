import { isFrameWord } from "../search/frame-words.js";
import { MONTH_NAMES, WEEKDAY_NAMES } from "../util/calendar-names.js";
import { isHost } from "./hosts.js";
import { isImperative } from "./imperatives.js";
import { settingValue } from "./setting-values.js";

/**
 * What one short statement names, read deterministically (no model): its entities (people,
 * projects, services, hosts, places, tools — as the text writes them) and its values, each with a
 * class, and which values it says are no longer so.
 *
 * - **Names**: runs of capitalised words ("Gabe Moreno", "VS Code", "GitHub Actions"). A word
 *   opening a sentence counts when it is no common English word ("Kira", "Standup") or request verb
 *   ("Bump", "Deploy": imperatives.ts), or a verb follows it ("Grace lives …", "Leo's …", "Jonas: …").
 * - **Identifiers**: lowercase words joined by `-`/`_` ("billing-api", "reports-etl"); with a digit
 *   they are values of class `id` (hosts, ids: "hx-301", "rack14-n3"), as are domain names
 *   ("db-stage-3.internal", "grafana.example.com"; not file names: "notes.md") and IPv4 addresses.
 * - **Phrases**: "the" and the next one or two words that are no stop words ("the data team", "the
 *   Android app" → "android app"), and a sentence's two-word subject before its verb ("Weekly
 *   planning moved …").
 * - **Typed values**: clock times ("9:30am", "2pm"), weekdays ("Tuesdays"), versions (a name and a
 *   number: "Node 22", "Kafka 3.7", class `version:node`), settings (setting-values.ts).
 * A value in a clause that says no longer ("no longer", "not", "n't", "anymore", "no more",
 * "dropped", "retired", "decommissioned", "instead of", "from X to …", "moved off X") is *old*: the
 * statement is about the value that replaced it. Parentheses set a clause apart ("moved to Y (X
 * retired)").
 */
export interface Mention {
  /** As written. */
  text: string;
  /** Lowercase key (possessive dropped). */
  key: string;
  kind: "name" | "identifier" | "phrase" | "term" | "value";
  /** For values: time | weekday | id | version:<tech>; names get theirs from the workspace (link.ts). */
  cls?: string;
  /** Said to be no longer so. */
  old?: boolean;
  /** Written as an owner ("Elena's manager"): the statement's subject. */
  possessive?: boolean;
}

/** A mention and where it starts in the text. */
type Located = Mention & { start: number };

export interface Reading {
  mentions: Mention[];
  /** The statement's predicate: its other content words, lowercased and sorted ("live", "report"). */
  predicate: string;
}

const STOP = new Set(
  `a an the and or but if then so of in on at to for from by with as is are was were be been being it its this that these those
   we i you he she they our my your their me us them there here not no yes do does did done have has had will would can could should
   just also now currently today yesterday tonight again still new old instead anymore any all some every each per via into onto over than
   about after before up out off down i'm it's isn't doesn't don't won't can't what which who whom whose when where why how let's`.split(
    /\s+/,
  ),
);
/** Words after a sentence-opening word that show it is a subject ("Grace lives …"). */
const AUX = new Set(
  `is are was were has had have does did doesn't isn't wasn't hasn't can can't will won't no now just never always still moved
   switched lives works reports prefers codes uses said says asked told wants likes joined left got`.split(/\s+/),
);
const NEGATION =
  /\b(?:no longer|not|never|anymore|any more|no more|dropped|stopped|instead of|replaced|retired|decommissioned|deprecated|shut down|left)\b|n't\b/i;
/** Words that say something became otherwise (with NEGATION: `saysChange`). */
const CHANGE =
  /\b(?:moved|moving|moves|switched|switching|changed|changing|replaced|replacing|upgraded|migrated|relocated|rescheduled|renamed|reassigned|promoted|took over|takes over|taking over|new|now|from now on|starting|instead)\b/i;

/**
 * Whether a text says that something changed ("my new manager is …", "Staging moved off …",
 * "Switched from Linear to Jira", "no longer uses …"), not only how it is.
 */
export function saysChange(text: string): boolean {
  return CHANGE.test(text) || NEGATION.test(text);
}

const WEEKDAYS = new Set(WEEKDAY_NAMES);
const MONTHS = new Set(MONTH_NAMES);
/** Month names as dates write them, abbreviated too ("Dec 10", "Sept 3"). */
const DATE_MONTHS = new Set([...MONTH_NAMES, ...MONTH_NAMES.map((m) => m.slice(0, 3)), "sept"]);
/** A day of the month ("3", "10th"). */
const MONTH_DAY = /^(?:[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?$/i;
const TOKEN = /[\p{L}\p{N}](?:[\p{L}\p{N}_+#-]|[.:'’](?=[\p{L}\p{N}]))*/gu;
const TIME = /^(?:\d{1,2}(?::\d{2})?\s?(?:am|pm)|\d{1,2}:\d{2})$/i;
const NUMBER = /^\d+(?:\.\d+)*x?$/i;

export interface Token {
  raw: string;
  /** Without a possessive 's. */
  word: string;
  start: number;
  end: number;
  /** Opens a sentence or clause. */
  opens: boolean;
  possessive: boolean;
}

/** The words of a text (TOKEN's matches) with where each is and how it stands. */
export function tokens(text: string): Token[] {
  if (!isAscii(text)) return unicodeTokens(text);
  // ASCII text (most): TOKEN's matches found by hand — \p{L} / \p{N} are [A-Za-z] / [0-9] there,
  // \s is one of " \t\n\v\f\r", a possessive ends "'s" or "'S" (no ’ in ASCII).
  const out: Token[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!isAlnum(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    let e = i + 1;
    for (;;) {
      const c = text.charCodeAt(e); // NaN past the end: no class
      if (isAlnum(c) || c === 95 || c === 43 || c === 35 || c === 45)
        e++; // _ + # -
      else if ((c === 46 || c === 58 || c === 39) && isAlnum(text.charCodeAt(e + 1)))
        e += 2; // . : ' then one
      else break;
    }
    let k = start - 1;
    while (k >= 0 && isAsciiSpace(text.charCodeAt(k))) k--;
    const opens = k < 0 || ".!?;:".includes(text[k]!);
    const raw = text.slice(start, e);
    const poss = e - start >= 2 && text.charCodeAt(e - 2) === 39 && (text.charCodeAt(e - 1) | 32) === 115;
    out.push({ raw, word: poss ? raw.slice(0, -2) : raw, start, end: e, opens, possessive: poss });
    i = e;
  }
  return out;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/** The ASCII characters of \s: space, \t, \n, \v, \f, \r. */
function isAsciiSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** tokens() by its definition, for any text: TOKEN's matches (a test holds the ASCII path to it). */
export function unicodeTokens(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const raw = m[0];
    const start = m.index;
    let k = start - 1;
    while (k >= 0 && /\s/.test(text[k]!)) k--;
    const opens = k < 0 || ".!?;:".includes(text[k]!);
    const poss = /['’]s$/i.test(raw);
    out.push({ raw, word: poss ? raw.slice(0, -2) : raw, start, end: start + raw.length, opens, possessive: poss });
  }
  return out;
}

const isCapitalised = (w: string) => {
  const c = w.charCodeAt(0);
  return c < 128 ? c >= 65 && c <= 90 : /^\p{Lu}/u.test(w);
};

function isName(t: Token, next: Token | undefined, text: string): boolean {
  if (!isCapitalised(t.word) || /^\d/.test(t.word)) return false;
  const lower = t.word.toLowerCase();
  if (STOP.has(lower) || WEEKDAYS.has(lower.replace(/s$/, "")) || MONTHS.has(lower)) return false;
  if (!t.opens) return lower !== "i";
  if (t.possessive || text.slice(t.end, t.end + 1) === ":") return true;
  if (next && AUX.has(next.word.toLowerCase())) return true;
  return !isFrameWord(lower) && !isImperative(lower) && !/(?:ed|ing|ly|y)$/.test(lower);
}

/** The value classes that are times of some kind (typedClass, and the dates readStatement reads). */
export const TIME_VALUE_CLASSES: ReadonlySet<string> = new Set(["time", "weekday", "date"]);

function typedClass(word: string): string | null {
  const w = word.toLowerCase();
  if (isHost(word)) return "id";
  if (TIME.test(w) && /[a-z]|:/.test(w)) return "time";
  const day = w.endsWith("s") ? w.slice(0, -1) : w;
  if (WEEKDAYS.has(day)) return "weekday";
  if (/^\d{4}-\d{2}-\d{2}$/.test(w)) return "date";
  if (/^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+$/.test(w) && /\d/.test(w)) return "id";
  if (/^[a-z]+\d+[a-z0-9]*$/.test(w) && /[a-z]{2}/.test(w) && !/^\d/.test(w) && word === w) return "id";
  return null;
}

/**
 * The names and identifiers of any text (a cheaper read than `readStatement`, for text that is no
 * statement: entities only). Keys are lowercase; values as written.
 */
export function readNames(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const toks = tokens(text);
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    const lower = t.word.toLowerCase();
    if (/^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+$/.test(lower) && !/\d/.test(lower)) {
      if (!out.has(lower)) out.set(lower, t.word);
      continue;
    }
    if (!isName(t, toks[i + 1], text) || typedClass(t.word)) continue;
    let j = i;
    let name = t.word;
    while (j + 1 < toks.length && !toks[j]!.possessive) {
      const n = toks[j + 1]!;
      if (n.start - toks[j]!.end > 1 || !isCapitalised(n.word) || n.opens || STOP.has(n.word.toLowerCase())) break;
      name += ` ${n.word}`;
      j++;
    }
    i = j;
    const key = name.toLowerCase();
    if (key.length <= 64 && !out.has(key)) out.set(key, name);
  }
  return out;
}

/** The clause (between ; , . — and "but") a position is in, as [start, end). */
function clauses(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let from = 0;
  for (const m of text.matchAll(/[;,.!?—–]\s|\s(?:but|while)\s|\s[-–]\s|\s\(|\)/g)) {
    out.push([from, m.index + 1]);
    from = m.index + m[0].length;
  }
  out.push([from, text.length]);
  return out;
}

/** The mentions of one statement's text (a bullet, a short message). */
export function readStatement(statement: string): Reading {
  // A conversational lead-in ("remember this:", "fyi:", "btw,") is no part of the statement.
  const text = statement.replace(/^(?:[a-z][a-z ]{0,24}:\s+|(?:btw|fyi|ps|ok|oh|so|also),?\s+)/, "");
  const toks = tokens(text);
  const mentions: Located[] = [];
  const used = new Set<number>();
  const predicate: string[] = [];
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    if (used.has(i)) continue;
    const next = toks[i + 1];
    const cls = typedClass(t.word);
    if (cls) {
      mentions.push(value(t.word, cls, t.start));
      continue;
    }
    // A date: a month and its day ("March 3", "Dec 10th"), or the day first ("3 March").
    const month = (w: Token | undefined) => !!w && isCapitalised(w.word) && DATE_MONTHS.has(w.word.toLowerCase());
    if (next && !used.has(i + 1) && next.start - t.end <= 1) {
      const monthFirst = month(t) && MONTH_DAY.test(next.word);
      if (monthFirst || (MONTH_DAY.test(t.word) && month(next))) {
        mentions.push(value(`${t.word} ${next.word}`, "date", t.start));
        used.add(i + 1);
        continue;
      }
    }
    // A setting: a port or an amount of a setting ("port 5173", "30 minutes", "8 replicas"; setting-values.ts).
    const setting = next && used.has(i + 1) ? null : settingValue(t.word, next?.word, text);
    if (setting) {
      mentions.push(value(setting.text, setting.cls, t.start));
      if (setting.words === 2) used.add(i + 1);
      continue;
    }
    // A version: a name and a number ("Node 22", "Kafka 3.7", "PostgreSQL 15"; not "Fixed 3 bugs").
    const verb = t.opens && /(?:ed|ing)$/i.test(t.word);
    if (
      isCapitalised(t.word) &&
      !verb &&
      next &&
      NUMBER.test(next.word) &&
      !used.has(i + 1) &&
      next.start - t.end <= 1
    ) {
      mentions.push(value(`${t.word} ${next.word}`, `version:${t.word.toLowerCase()}`, t.start));
      used.add(i + 1);
      continue;
    }
    if (isName(t, next, text)) {
      let j = i;
      let name = t.word;
      while (j + 1 < toks.length && !toks[j]!.possessive) {
        const n = toks[j + 1]!;
        if (n.start - toks[j]!.end > 1 || !isCapitalised(n.word) || n.opens || STOP.has(n.word.toLowerCase())) break;
        if (typedClass(n.word) || (toks[j + 2] && NUMBER.test(toks[j + 2]!.word))) break;
        name += ` ${n.word}`;
        j++;
      }
      for (let k = i; k <= j; k++) used.add(k);
      const poss = toks[j]!.possessive ? { possessive: true } : {};
      mentions.push({ text: name, key: name.toLowerCase(), kind: "name", start: t.start, ...poss });
      continue;
    }
    const lower = t.word.toLowerCase();
    const subject = openingSubject(t, next, toks[i + 2]);
    if (subject) mentions.push({ text: subject, key: subject.toLowerCase(), kind: "phrase", start: t.start });
    if (/^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+$/.test(lower)) {
      mentions.push({
        text: t.word,
        key: lower,
        kind: "identifier",
        start: t.start,
        ...(t.possessive ? { possessive: true } : {}),
      });
      continue;
    }
    if (lower === "the" && next && !used.has(i + 1)) {
      const words: string[] = [];
      for (let k = i + 1; k < toks.length && words.length < 2; k++) {
        const w = toks[k]!;
        const wl = w.word.toLowerCase();
        if (STOP.has(wl) || typedClass(w.word) || NUMBER.test(w.word) || w.opens) break;
        if (words.length > 0 && toks[k - 1]!.possessive) break;
        words.push(wl);
        if (w.possessive) break;
      }
      if (words.length === 2 || (words.length === 1 && !isFrameWord(words[0]!))) {
        mentions.push({ text: `the ${words.join(" ")}`, key: words.join(" "), kind: "phrase", start: t.start });
      }
    }
    if (!STOP.has(lower) && !NUMBER.test(lower) && lower.length > 2) {
      predicate.push(lower);
      if (lower.length >= 5 && !isCapitalised(t.word) && !isFrameWord(lower))
        mentions.push({ text: t.word, key: lower, kind: "term", start: t.start });
    }
  }
  markOld(text, mentions);
  return {
    mentions: mentions.map(({ start: _s, ...m }) => m),
    predicate: predicate.length === 0 ? "" : predicateOf(predicate, mentions),
  };
}

/** The predicate's words that are no word of a mention, stemmed, each once, sorted, joined by spaces. */
function predicateOf(words: readonly string[], mentions: readonly Mention[]): string {
  const entityWords = new Set<string>();
  for (const m of mentions) {
    if (!m.key.includes(" ")) entityWords.add(m.key);
    else for (const w of m.key.split(" ")) entityWords.add(w);
  }
  const stems = new Set<string>();
  for (const w of words) if (!entityWords.has(w)) stems.add(predicateStem(w));
  return [...stems].sort().join(" ");
}

/** Second words that make a time, not a subject ("Next week is …", "Last night was …"). */
const TIME_NOUN = /^(?:day|night|morning|afternoon|evening|week|weekend|month|year|time)s?$/;

/**
 * A sentence's two-word subject before its verb, when its first word is no name ("Weekly planning
 * moved to …", "Daily standup is at …"): the thing the statement is about.
 */
function openingSubject(t: Token, next: Token | undefined, verb: Token | undefined): string | null {
  if (!t.opens || !isCapitalised(t.word) || !next || !verb || next.start - t.end > 1) return null;
  const n = next.word.toLowerCase();
  if (next.word !== n || STOP.has(n) || typedClass(n) || TIME_NOUN.test(n) || next.possessive) return null;
  if (STOP.has(t.word.toLowerCase()) || !AUX.has(verb.word.toLowerCase())) return null;
  return `${t.word} ${next.word}`;
}

function value(text: string, cls: string, start: number): Located {
  return { text, key: text.toLowerCase(), kind: "value", cls, start };
}

/** Lowercase words to a rough stem for predicates ("lives" → "live", "reports" → "report"). */
function predicateStem(w: string): string {
  if (w.endsWith("ies") && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith("es") && /(?:ss|sh|ch|x)es$/.test(w)) return w.slice(0, -2);
  if (w.endsWith("s") && !w.endsWith("ss") && w.length > 3) return w.slice(0, -1);
  return w;
}

/** Values in a clause that says no longer, after "from" with a "to" later, or after "off" in a change, are old. */
function markOld(text: string, mentions: Located[]): void {
  const values = mentions.filter((m) => m.kind === "value" || m.kind === "name");
  if (values.length < 2) return;
  for (const [a, b] of clauses(text)) {
    const inClause = values.filter((m) => m.start >= a && m.start < b);
    if (inClause.length === 0) continue;
    if (NEGATION.test(text.slice(a, b))) {
      // The clause's subject (a possessive name, else its first name when another value follows) stays.
      const owner = inClause.find((m) => m.possessive) ?? (inClause[0]!.kind === "name" ? inClause[0] : undefined);
      for (const m of inClause) if (m !== owner || inClause.length === 1) m.old = true;
    }
  }
  for (const m of values) {
    const before = text.slice(Math.max(0, m.start - 5), m.start).toLowerCase();
    if (/\bfrom\s$/.test(before) && /\bto\b/i.test(text.slice(m.start))) m.old = true;
    else if (/\boff\s$/.test(before) && CHANGE.test(text)) m.old = true;
  }
}
