import { DAY_MS, parseDates, referenceDay, type DateWindow } from "./dates.js";

/**
 * Words that may name a day relative to a memory's own date (dates.ts reads them: today, yesterday,
 * tomorrow, a weekday): a prefilter, looser than the parser, so it passes whatever the parser reads.
 */
const RELATIVE_DAY =
  /\b(?:today|tonight|yesterday|tomorrow|last\s+night|this\s+(?:morning|afternoon|evening)|sun|mon|tue|wed|thu|fri|sat)/i;
/** Characters of a memory read for the days it names (a chunk is ~1,600; the cost stays bounded). */
const MAX_CHARS = 4_000;

/**
 * The single days a prompt names, read both ways: the latest such day (dates.ts: memories are about
 * the past) and the next one (a plan: "what are my plans for the 20th?"). A window longer than a
 * day (a month, "last week") names no day here.
 */
export function promptDays(
  query: string,
  ref: Date | string,
  back: readonly DateWindow[] = parseDates(query, ref),
): ReadonlySet<string> {
  const days = new Set<string>();
  for (const w of [...back, ...parseDates(query, ref, { ahead: true })]) if (w.from === w.to) days.add(w.from);
  return days;
}

/**
 * Whether a memory's text names one of the prompt's days: its date words read from the memory's own
 * date, back and ahead ("Booked tickets for the 20th" in the log of the 6th names the 20th;
 * "yesterday" in the log of the 7th names the 6th); an undated memory's from the reference. Only a
 * text holding one of the days' numbers, or a relative word within a week of them, is parsed (the
 * parse costs ~0.3 ms a chunk): null when the prompt names no single day.
 */
export function dayNamer(
  query: string,
  ref: Date | string,
  /** The prompt's windows as parseDates read them already (back from the reference). */
  back?: readonly DateWindow[],
): ((text: string, date: string | undefined) => boolean) | null {
  const days = promptDays(query, ref, back);
  if (days.size === 0) return null;
  const stamps = [...days].map((d) => referenceDay(d));
  const numbers = new Set([...days].map((d) => String(Number(d.slice(8)))));
  const byNumber = new RegExp(`\\b0?(?:${[...numbers].join("|")})(?:st|nd|rd|th)?\\b`, "i");
  return (text, date) => {
    const src = text.length > MAX_CHARS ? text.slice(0, MAX_CHARS) : text;
    const from = date ?? ref;
    const own = referenceDay(from);
    const near = stamps.some((s) => Math.abs(s - own) <= 7 * DAY_MS);
    if (!byNumber.test(src) && !(near && RELATIVE_DAY.test(src))) return false;
    for (const ahead of [false, true])
      for (const w of parseDates(src, from, { ahead })) if (w.from === w.to && days.has(w.from)) return true;
    return false;
  };
}
