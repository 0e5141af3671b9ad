import { bodyText, newer, type DailyEntry } from "./entries.js";
import { MONTH_NAMES, WEEKDAY_NAMES } from "../util/calendar-names.js";

/**
 * Supersession, deliberately simple and explainable: a newer daily-log entry supersedes an older
 * one when both are short statements (≤ MAX_WORDS words) that
 *   1. share their subject: at least one subject word (content words that are not values or change
 *      verbs) in common and at most one that is not (so "auth listens on 8080" and "billing listens
 *      on 9090" are two subjects, not one fact restated), and
 *   2. both state a value of the same kind (number/version/time, weekday, month, or
 *      off/true/false/enabled/disabled) and no value is shared: "deploys run on Fridays" →
 *      "deploys moved to Tuesdays" (subject {deploy}, value friday → tuesday).
 * Nothing is written to any file: the older entry is marked superseded in the index.
 */
const MAX_WORDS = 40;
/** Subject words shared by more statements than this do not pair them. */
const MAX_POSTING = 64;

const STOP = new Set(
  `a an the and or but if then so of in on at to for from by with as is are was were be been being it its this that these those
   we i you he she they our my your their me us them there here not no yes do does did done have has had will would can could should
   just also now currently today yesterday again still new old instead anymore any all some every each per via into onto over than`.split(
    /\s+/,
  ),
);
/** Words that announce a change but are not the subject. */
const CHANGE = new Set(
  `moved move moves changed change changes switched switch switches now run runs running ran happen happens happened use uses used using
   set sets became become becomes updated update updates went go goes going is are was were default`.split(/\s+/),
);
const WEEKDAYS = WEEKDAY_NAMES;
const MONTHS = MONTH_NAMES;
const FLAGS = new Set(["off", "true", "false", "enabled", "disabled"]);

function stem(w: string): string {
  if (w.length > 4 && w.endsWith("ies")) return `${w.slice(0, -3)}y`;
  if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss")) return w.slice(0, -1);
  return w;
}

/** A value word, normalised (weekday/month plurals and abbreviations folded), or null. */
export function valueOf(word: string): string | null {
  const w = word.toLowerCase();
  if (/\d/.test(w)) return w;
  const s = stem(w);
  for (const d of WEEKDAYS) if (s === d || s === d.slice(0, 3)) return d;
  for (const m of MONTHS) if (s === m) return m;
  if (FLAGS.has(w)) return w;
  return null;
}

function kindOf(value: string): string {
  if (WEEKDAYS.includes(value)) return "weekday";
  if (MONTHS.includes(value)) return "month";
  if (FLAGS.has(value)) return "flag";
  return "number";
}

export interface Statement {
  subject: Set<string>;
  values: Set<string>;
}

/** Subject and value words of a short statement, or null when the entry is too long to be one fact. */
export function analyse(text: string): Statement | null {
  if (text.length > MAX_WORDS * 16) return null; // cheap reject: not a one-fact entry
  const words =
    bodyText(text)
      .toLowerCase()
      .match(/[\p{L}\p{N}][\p{L}\p{N}.:_-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu) ?? [];
  if (words.length === 0 || words.length > MAX_WORDS) return null;
  const subject = new Set<string>();
  const values = new Set<string>();
  for (const w of words) {
    const v = valueOf(w);
    if (v) {
      values.add(v);
      continue;
    }
    if (STOP.has(w) || CHANGE.has(w) || w.length < 3) continue;
    subject.add(stem(w));
  }
  return { subject, values };
}

export interface Supersession {
  older: number;
  newer: number;
  reason: string;
}

/** Why `b` (newer) supersedes `a` (older), or null. */
export function explainSupersession(a: Statement, b: Statement): string | null {
  if (a.values.size === 0 || b.values.size === 0) return null;
  for (const v of a.values) if (b.values.has(v)) return null;
  const shared = [...a.subject].filter((w) => b.subject.has(w));
  const differing = a.subject.size + b.subject.size - 2 * shared.length;
  if (shared.length === 0 || differing > 1) return null;
  const kinds = (s: Set<string>) => new Set([...s].map(kindOf));
  const kb = kinds(b.values);
  if (![...kinds(a.values)].some((k) => kb.has(k))) return null;
  return `same subject (${shared.join(", ")}), value ${[...a.values].join("/")} → ${[...b.values].join("/")}`;
}

/**
 * Supersessions among daily-log entries (indexes into `entries`). Only pairs that share a subject
 * word are compared (a word posting list); words in very many entries are not used to pair.
 * Each older entry gets the newest entry that supersedes it; duplicates (same values) never do.
 */
export async function findSupersessions(entries: readonly DailyEntry[]): Promise<Supersession[]> {
  const pause = () => new Promise<void>((r) => setImmediate(r));
  let ops = 0;
  const st: (Statement | null)[] = [];
  for (const e of entries) {
    st.push(analyse(e.text));
    if (st.length % 500 === 0) await pause();
  }
  const postings = new Map<string, number[]>();
  st.forEach((s, i) => {
    if (!s || s.values.size === 0) return;
    for (const w of s.subject) {
      let l = postings.get(w);
      if (!l) postings.set(w, (l = []));
      l.push(i);
    }
  });
  const best = new Map<number, Supersession>();
  const tried = new Set<number>();
  const n = entries.length;
  for (const list of postings.values()) {
    // A word many statements share is no subject (e.g. "meeting"); it does not pair entries.
    if (list.length < 2 || list.length > MAX_POSTING) continue;
    for (let x = 0; x < list.length; x++) {
      for (let y = x + 1; y < list.length; y++) {
        const i = list[x]!;
        const j = list[y]!;
        const key = i < j ? i * n + j : j * n + i;
        if (tried.has(key)) continue;
        tried.add(key);
        if (++ops % 5_000 === 0) await pause();
        const ei = entries[i]!;
        const ej = entries[j]!;
        if (ei.date === ej.date && ei.path === ej.path) continue; // same log: both are current, or a list
        const [older, newerIdx] = newer(ei, ej) ? [j, i] : [i, j];
        if (entries[older]!.date === entries[newerIdx]!.date) continue;
        const reason = explainSupersession(st[older]!, st[newerIdx]!);
        if (!reason) continue;
        const prev = best.get(older);
        if (!prev || newer(entries[newerIdx]!, entries[prev.newer]!))
          best.set(older, { older, newer: newerIdx, reason });
      }
    }
  }
  return [...best.values()];
}
