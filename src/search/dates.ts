/**
 * Dates in a question, deterministically: absolute ("October 24, 2023", "24 Oct", "March 2023",
 * "2023-10-24", "in May", "in 2022", "03/04/2023") and relative ("today", "yesterday", "last week",
 * "two months ago", "on Tuesday", "tomorrow") resolved against a reference day, as inclusive windows of
 * calendar days (YYYY-MM-DD). No model, no clock of its own: the caller passes the reference.
 *
 * A date without a year is the latest one not after the reference (memories are about the past), or
 * with `ahead` the first one not before it (a plan: "for the 20th" written on the 6th).
 * An ambiguous numeric date (03/04/2023: March 4 or April 3) yields both days unless the order is
 * known (`dayFirst`, e.g. from the locale).
 */
import { MONTH_NAMES, WEEKDAY_NAMES } from "../util/calendar-names.js";

export interface DateWindow {
  /** First and last day, inclusive, YYYY-MM-DD. */
  from: string;
  to: string;
  /** The words it was read from. */
  text: string;
}

export interface DateParseOptions {
  /** Numeric dates: true = day/month/year, false = month/day/year, undefined = both readings when ambiguous. */
  dayFirst?: boolean;
  /** A day without a year or month ("Dec 20", "the 20th", "on Friday") is the next one, not the last. */
  ahead?: boolean;
}

/** A calendar day as a UTC midnight timestamp (day arithmetic without time zones or DST). */
type Day = number;
export const DAY_MS = 86_400_000;

const MONTHS = MONTH_NAMES;
const WEEKDAYS = WEEKDAY_NAMES;
const NUMBER_WORDS: Record<string, number> = Object.assign(Object.create(null) as Record<string, number>, {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  couple: 2,
  few: 3,
});

/** "oct", "october", "sept" → 0-based month, or -1. */
function monthIndex(word: string): number {
  const w = word.toLowerCase().replace(/\.$/, "");
  if (w.length < 3) return -1;
  if (w === "sept") return 8;
  return MONTHS.findIndex((m) => m === w || (w.length === 3 && m.startsWith(w)));
}

function weekdayIndex(word: string): number {
  const w = word.toLowerCase();
  return WEEKDAYS.findIndex(
    (d) => d === w || (w.length >= 3 && d.startsWith(w) && /^(sun|mon|tue|tues|wed|thu|thur|thurs|fri|sat)$/.test(w)),
  );
}

function day(y: number, m: number, d: number): Day {
  return Date.UTC(y, m, d);
}

function valid(y: number, m: number, d: number): boolean {
  if (m < 0 || m > 11 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
}

function iso(t: Day): string {
  return new Date(t).toISOString().slice(0, 10);
}

function monthWindow(y: number, m: number): [Day, Day] {
  return [day(y, m, 1), day(y, m + 1, 0)];
}

/** The reference as a calendar day: a YYYY-MM-DD string is taken as written; a Date by its local date. */
export function referenceDay(ref: Date | string): Day {
  if (typeof ref === "string") {
    const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(ref);
    if (m && valid(+m[1]!, +m[2]! - 1, +m[3]!)) return day(+m[1]!, +m[2]! - 1, +m[3]!);
    const t = new Date(ref);
    if (Number.isNaN(t.getTime())) throw new Error(`not a date: "${ref}" (expected YYYY-MM-DD or an ISO date-time)`);
    return day(t.getFullYear(), t.getMonth(), t.getDate());
  }
  return day(ref.getFullYear(), ref.getMonth(), ref.getDate());
}

function parts(t: Day): { y: number; m: number; d: number; wd: number } {
  const x = new Date(t);
  return { y: x.getUTCFullYear(), m: x.getUTCMonth(), d: x.getUTCDate(), wd: x.getUTCDay() };
}

/** Two-digit years: 00–69 → 2000s, 70–99 → 1900s. */
function fullYear(s: string): number {
  const n = Number(s);
  return s.length <= 2 ? (n < 70 ? 2000 + n : 1900 + n) : n;
}

/** The latest (y, m, d) not after the reference when the year is not given (with `ahead`: the first not before it). */
function yearOf(ref: Day, m: number, d: number, ahead = false): Day | null {
  const { y } = parts(ref);
  for (let k = 0; k <= 4; k++) {
    const yy = ahead ? y + k : y - k;
    if (valid(yy, m, d) && (ahead ? day(yy, m, d) >= ref : day(yy, m, d) <= ref)) return day(yy, m, d);
  }
  return null;
}

/** Monday of the week holding t. */
function mondayOf(t: Day): Day {
  const wd = parts(t).wd;
  return t - ((wd + 6) % 7) * DAY_MS;
}

interface Found {
  start: number;
  end: number;
  from: Day;
  to: Day;
}

/** `claims`: text matching the pattern is no date for later rules even when it is no valid date (2023-02-29). */
type Rule = {
  re: RegExp;
  read: (m: RegExpExecArray, ref: Day, opts: DateParseOptions) => [Day, Day][] | null;
  claims?: boolean;
};

const MONTH =
  "(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?";
const ORD = "(\\d{1,2})(?:st|nd|rd|th)?";
const YEAR = "((?:19|20)\\d{2})";
const NUM =
  "(\\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of|couple of|a few|few)";
const WEEKDAY = "(sun(?:day)?|mon(?:day)?|tue(?:s|sday)?|wed(?:nesday)?|thu(?:r|rs|rsday)?|fri(?:day)?|sat(?:urday)?)";

function amount(s: string): number {
  const w = s.toLowerCase().replace(/^a /, "").replace(/ of$/, "");
  return /^\d+$/.test(w) ? Number(w) : (NUMBER_WORDS[w] ?? 1);
}

function one(from: Day, to: Day = from): [Day, Day][] {
  return [[from, to]];
}

/** The rules, most specific first; a later rule never reads words an earlier one consumed. */
const RULES: Rule[] = [
  // 2023-10-24, 2023/10/24
  {
    re: /\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})\b/g,
    read: (m) => (valid(+m[1]!, +m[2]! - 1, +m[3]!) ? one(day(+m[1]!, +m[2]! - 1, +m[3]!)) : null),
    claims: true,
  },
  // 24/10/2023, 10/24/2023, 03/04/2023 (ambiguous), 24.10.23
  {
    re: /\b(\d{1,2})[/.](\d{1,2})[/.](\d{4}|\d{2})\b/g,
    read: (m, _ref, opts) => {
      const a = +m[1]!;
      const b = +m[2]!;
      const y = fullYear(m[3]!);
      const dmy = valid(y, b - 1, a) ? day(y, b - 1, a) : null;
      const mdy = valid(y, a - 1, b) ? day(y, a - 1, b) : null;
      if (dmy !== null && mdy !== null && dmy !== mdy) {
        if (opts.dayFirst === true) return one(dmy);
        if (opts.dayFirst === false) return one(mdy);
        return [one(mdy)[0]!, one(dmy)[0]!];
      }
      const d = dmy ?? mdy;
      return d === null ? null : one(d);
    },
    claims: true,
  },
  // October 24, 2023 · Oct 24th 2023 · October 24
  {
    re: new RegExp(`\\b${MONTH}\\s+${ORD}(?:,?\\s+${YEAR})?\\b`, "gi"),
    read: (m, ref, opts) => {
      const mo = monthIndex(m[1]!);
      const d = +m[2]!;
      if (m[3]) return valid(+m[3], mo, d) ? one(day(+m[3], mo, d)) : null;
      if (m[1]!.toLowerCase() === "may" && !/^May/.test(m[0])) return null;
      const t = yearOf(ref, mo, d, opts.ahead);
      return t === null ? null : one(t);
    },
    claims: true,
  },
  // 24 October 2023 · 24th of Oct · 24 Oct
  {
    re: new RegExp(`\\b${ORD}\\s+(?:of\\s+)?${MONTH}(?:,?\\s+${YEAR})?\\b`, "gi"),
    read: (m, ref, opts) => {
      const mo = monthIndex(m[2]!);
      const d = +m[1]!;
      if (m[3]) return valid(+m[3], mo, d) ? one(day(+m[3], mo, d)) : null;
      const t = yearOf(ref, mo, d, opts.ahead);
      return t === null ? null : one(t);
    },
    claims: true,
  },
  // the first/second/third/fourth/last week of October (2023): days 1–7, 8–14, 15–21, 22–28, the last seven
  {
    re: new RegExp(
      `\\b(?:the\\s+)?(first|1st|second|2nd|third|3rd|fourth|4th|last|final)\\s+week\\s+of\\s+${MONTH}(?:,?\\s+${YEAR})?\\b`,
      "gi",
    ),
    read: (m, ref) => {
      const mo = monthIndex(m[2]!);
      const { y, m: cur } = parts(ref);
      const yy = m[3] ? +m[3] : mo <= cur ? y : y - 1;
      const [first, last] = monthWindow(yy, mo);
      const k = ["first", "1st", "second", "2nd", "third", "3rd", "fourth", "4th"].indexOf(m[1]!.toLowerCase());
      if (k < 0) return one(last - 6 * DAY_MS, last);
      const start = first + Math.floor(k / 2) * 7 * DAY_MS;
      return one(start, start + 6 * DAY_MS);
    },
    claims: true,
  },
  // March 2023 · May of 2022
  {
    re: new RegExp(`\\b${MONTH},?\\s+(?:of\\s+)?${YEAR}\\b`, "gi"),
    read: (m) => [monthWindow(+m[2]!, monthIndex(m[1]!))],
  },
  // 2023-10 (year-month)
  {
    re: /\b((?:19|20)\d{2})-(0[1-9]|1[0-2])\b/g,
    read: (m) => [monthWindow(+m[1]!, +m[2]! - 1)],
  },
  // the day before yesterday
  { re: /\bthe\s+day\s+before\s+yesterday\b/gi, read: (_m, ref) => one(ref - 2 * DAY_MS) },
  // the week before last
  {
    re: /\bthe\s+week\s+before\s+last\b/gi,
    read: (_m, ref) => {
      const mon = mondayOf(ref);
      return one(mon - 14 * DAY_MS, mon - 8 * DAY_MS);
    },
  },
  // today, tonight, this morning/afternoon/evening
  { re: /\b(?:today|tonight|this\s+(?:morning|afternoon|evening))\b/gi, read: (_m, ref) => one(ref) },
  // yesterday, last night
  { re: /\b(?:yesterday|last\s+night)\b/gi, read: (_m, ref) => one(ref - DAY_MS) },
  // tomorrow (a plan written down: "the demo is tomorrow")
  { re: /\btomorrow\b/gi, read: (_m, ref) => one(ref + DAY_MS) },
  // N days/weeks/months/years ago
  {
    re: new RegExp(`\\b${NUM}\\s+(day|week|month|year)s?\\s+ago\\b`, "gi"),
    read: (m, ref) => {
      const n = amount(m[1]!);
      const unit = m[2]!.toLowerCase();
      if (n > 1000) return null;
      if (unit === "day") return one(ref - n * DAY_MS);
      if (unit === "week") return one(ref - (7 * n + 3) * DAY_MS, ref - (7 * n - 3) * DAY_MS);
      const { y, m: mo } = parts(ref);
      if (unit === "month") {
        const t = new Date(Date.UTC(y, mo - n, 1));
        return [monthWindow(t.getUTCFullYear(), t.getUTCMonth())];
      }
      return one(day(y - n, 0, 1), day(y - n, 11, 31));
    },
  },
  // the past/last N days/weeks/months
  {
    re: new RegExp(`\\b(?:the\\s+)?(?:past|last|previous)\\s+${NUM}\\s+(day|week|month)s\\b`, "gi"),
    read: (m, ref) => {
      const n = Math.min(amount(m[1]!), 1000);
      const unit = m[2]!.toLowerCase();
      const days = unit === "day" ? n : unit === "week" ? 7 * n : 30 * n;
      return one(ref - days * DAY_MS, ref);
    },
  },
  // last/this/next week, month, year, weekend
  {
    re: /\b(last|this|past|previous)\s+(week|weekend|month|year)\b/gi,
    read: (m, ref) => {
      const last = m[1]!.toLowerCase() !== "this";
      const unit = m[2]!.toLowerCase();
      const { y, m: mo } = parts(ref);
      if (unit === "week") {
        const mon = mondayOf(ref);
        return last ? one(mon - 7 * DAY_MS, mon - DAY_MS) : one(mon, ref);
      }
      if (unit === "weekend") {
        // The latest Saturday–Sunday that has begun (this weekend) or ended before this week (last weekend).
        const mon = mondayOf(ref);
        const weekend = parts(ref).wd === 6 || parts(ref).wd === 0;
        const sat = !last && weekend ? mon + 5 * DAY_MS : mon - 2 * DAY_MS;
        return one(sat, sat + DAY_MS);
      }
      if (unit === "month") return last ? [monthWindow(mo === 0 ? y - 1 : y, (mo + 11) % 12)] : [monthWindow(y, mo)];
      return last ? one(day(y - 1, 0, 1), day(y - 1, 11, 31)) : one(day(y, 0, 1), ref);
    },
  },
  // in/during/since/early/late May · last March · this April (month without a year)
  {
    re: new RegExp(
      `\\b(in|during|since|until|by|early|mid|late|last|this|of|throughout)\\s+(?:the\\s+month\\s+of\\s+)?${MONTH}\\b(?!\\s+\\d)`,
      "gi",
    ),
    read: (m, ref) => {
      const word = m[2]!;
      if (word.toLowerCase() === "may" && word !== "May") return null;
      const mo = monthIndex(word);
      const { y, m: cur } = parts(ref);
      const yy = m[1]!.toLowerCase() === "last" ? (mo < cur ? y : y - 1) : mo <= cur ? y : y - 1;
      return [monthWindow(yy, mo)];
    },
  },
  // a full month name alone ("march" only capitalised; "may" only with the words above): the latest such month
  {
    re: /\b(january|february|march|april|june|july|august|september|october|november|december)\b/gi,
    read: (m, ref) => {
      if (m[1] === "march") return null;
      const mo = monthIndex(m[1]!);
      const { y, m: cur } = parts(ref);
      return [monthWindow(mo <= cur ? y : y - 1, mo)];
    },
  },
  // (on) (last) Tuesday: the latest such weekday before the reference (today counts only without "last"; `ahead`: the next but "last")
  {
    re: new RegExp(`\\b(?:(on|last|this|past)\\s+)?${WEEKDAY}\\b`, "gi"),
    read: (m, ref, opts) => {
      if (!m[1] && m[2]!.length <= 3) return null; // "sat", "wed" alone are too often words
      const wd = weekdayIndex(m[2]!);
      if (wd < 0) return null;
      const last = m[1]?.toLowerCase() === "last";
      if (opts.ahead && !last) return one(ref + ((wd - parts(ref).wd + 7) % 7) * DAY_MS);
      const back = (parts(ref).wd - wd + 7) % 7 || (last ? 7 : 0);
      return one(ref - back * DAY_MS);
    },
  },
  // on the 3rd · the 21st: the latest such day of a month, not after the reference (a suffix is needed; `ahead`: the next)
  {
    re: /\b(?:on\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:century|time|floor|place|anniversary|birthday|week))/gi,
    read: (m, ref, opts) => {
      const d = +m[1]!;
      const { y, m: cur } = parts(ref);
      for (let k = 0; k < 3; k++) {
        const t = new Date(Date.UTC(y, opts.ahead ? cur + k : cur - k, 1));
        const yy = t.getUTCFullYear();
        const mo = t.getUTCMonth();
        if (valid(yy, mo, d) && (opts.ahead ? day(yy, mo, d) >= ref : day(yy, mo, d) <= ref))
          return one(day(yy, mo, d));
      }
      return null;
    },
  },
  // in 2022 · 2022 (a year)
  { re: new RegExp(`\\b${YEAR}\\b`, "g"), read: (m) => one(day(+m[1]!, 0, 1), day(+m[1]!, 11, 31)) },
];

/**
 * The date windows a text mentions, in the order they appear, each at most once. Empty when the text
 * names no date.
 */
export function parseDates(text: string, ref: Date | string, opts: DateParseOptions = {}): DateWindow[] {
  const refDay = referenceDay(ref);
  const src = text.slice(0, 10_000);
  const found: Found[] = [];
  const taken = (s: number, e: number) => found.some((f) => s < f.end && e > f.start);
  for (const rule of RULES) {
    rule.re.lastIndex = 0;
    for (let m = rule.re.exec(src); m; m = rule.re.exec(src)) {
      const s = m.index;
      const e = s + m[0].length;
      if (taken(s, e)) continue;
      const windows = rule.read(m, refDay, opts);
      if (!windows) {
        if (rule.claims) found.push({ start: s, end: e, from: NaN, to: NaN });
        continue;
      }
      for (const [from, to] of windows)
        found.push({ start: s, end: e, from: Math.min(from, to), to: Math.max(from, to) });
    }
  }
  found.sort((a, b) => a.start - b.start || a.from - b.from);
  const out: DateWindow[] = [];
  const seen = new Set<string>();
  for (const f of found) {
    if (Number.isNaN(f.from)) continue;
    const key = `${f.from}:${f.to}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ from: iso(f.from), to: iso(f.to), text: src.slice(f.start, f.end) });
  }
  return out;
}

/** Whether a day (YYYY-MM-DD) falls in any of the windows. */
export function inWindows(date: string, windows: readonly DateWindow[]): boolean {
  return windows.some((w) => date >= w.from && date <= w.to);
}
