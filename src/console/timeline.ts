import type { ConsoleCall } from "./calls.js";
import { ConsoleCallError } from "./calls.js";

/**
 * Memories by day for the Timeline page, read through memory.get (the socket API's file reader, in
 * the private scope): the daily logs memory/YYYY-MM-DD.md of one month — where the agent's captures,
 * saves and the user's own notes of each day land. A month is at most 31 reads of one line each.
 */

export interface TimelineDay {
  day: string;
  path: string;
  lines: number;
}

const MONTH = /^(\d{4})-(\d{2})$/;

/** YYYY-MM of a date (UTC calendar: the daily logs' names are local days, the month is only a window). */
export function monthOf(d: Date): string {
  return d.toISOString().slice(0, 7);
}

export function daysOfMonth(month: string): string[] {
  const m = MONTH.exec(month);
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 12)
    throw new ConsoleCallError(400, `month must be YYYY-MM, got "${month.slice(0, 20)}"`);
  const count = new Date(Date.UTC(Number(m[1]), Number(m[2]), 0)).getUTCDate();
  return Array.from({ length: count }, (_, i) => `${month}-${String(i + 1).padStart(2, "0")}`);
}

export function dailyLogPath(day: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day))
    throw new ConsoleCallError(400, `day must be YYYY-MM-DD, got "${day.slice(0, 20)}"`);
  return `memory/${day}.md`;
}

/** The month's days that have a daily log, with its length in lines. */
export async function monthDays(call: ConsoleCall, month: string, workspace?: string): Promise<TimelineDay[]> {
  const out: TimelineDay[] = [];
  for (const day of daysOfMonth(month)) {
    const path = dailyLogPath(day);
    try {
      const r = await call("memory.get", { path, from: 1, lines: 1, scope: "private", ...ws(workspace) });
      out.push({ day, path: r.path, lines: r.totalLines });
    } catch (e) {
      if (!(e instanceof ConsoleCallError) || e.status !== 422) throw e; // 422: no such file
    }
  }
  return out;
}

function ws(workspace: string | undefined): { workspace?: string } {
  return workspace ? { workspace } : {};
}
