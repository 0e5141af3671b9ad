import { parseDates } from "./dates.js";

/** Characters of a memory read for the days it names (a chunk is ~1,600; the cost stays bounded). */
const MAX_CHARS = 4_000;

/**
 * The single days a prompt names, read both ways: the latest such day (dates.ts: memories are about
 * the past) and the next one (a plan: "what are my plans for the 20th?"). A window longer than a
 * day (a month, "last week") names no day here.
 */
export function promptDays(query: string, ref: Date | string): ReadonlySet<string> {
  const days = new Set<string>();
  for (const ahead of [false, true])
    for (const w of parseDates(query, ref, { ahead })) if (w.from === w.to) days.add(w.from);
  return days;
}

/**
 * Whether a memory's text names one of the days: its date words read from the memory's own date,
 * back and ahead ("Booked tickets for the 20th" in the log of the 6th names the 20th; "yesterday" in
 * the log of the 7th names the 6th); an undated memory's from the reference.
 */
export function namesDay(
  text: string,
  date: string | undefined,
  ref: Date | string,
  days: ReadonlySet<string>,
): boolean {
  if (days.size === 0) return false;
  const src = text.length > MAX_CHARS ? text.slice(0, MAX_CHARS) : text;
  const from = date ?? ref;
  for (const ahead of [false, true])
    for (const w of parseDates(src, from, { ahead })) if (w.from === w.to && days.has(w.from)) return true;
  return false;
}
