/**
 * The metrics of the updates set (../shared/eval/updates/<split>/README.md), on one recall context:
 * found (a current value appears), current-first (the first line holding any listed value holds a
 * current one), stale-absent (every line holding a stale value also holds a current one); and,
 * beside the README's metrics, leads: the block's first memory holds a current value (the answer is
 * what a reader sees first, not below other memories of the same person).
 */

export interface UpdateScores {
  found: boolean;
  currentFirst: boolean;
  staleAbsent: boolean;
  leads: boolean;
  chars: number;
}

/** The context's lines in reading order: split at newlines and at the " ⏎ " joining a chunk's lines. */
export function contextLines(context: string): string[] {
  return context.split(/\n| ⏎ /);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A matcher for one value: case-insensitive, whole token (no letter or digit either side), any whitespace run as one. */
export function valueMatcher(value: string): (text: string) => boolean {
  const body = value.trim().split(/\s+/).map(escapeRe).join("\\s+");
  const re = new RegExp(`(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])`, "iu");
  return (text) => re.test(text);
}

export function scoreUpdate(context: string, current: readonly string[], stale: readonly string[]): UpdateScores {
  const cur = current.map(valueMatcher);
  const old = stale.map(valueMatcher);
  const lines = contextLines(context);
  const holds = (ms: Array<(t: string) => boolean>, line: string) => ms.some((m) => m(line));
  const first = lines.find((l) => holds(cur, l) || holds(old, l));
  return {
    found: lines.some((l) => holds(cur, l)),
    currentFirst: first !== undefined && holds(cur, first),
    staleAbsent: lines.every((l) => !holds(old, l) || holds(cur, l)),
    leads: holds(cur, context.split("\n").find((l) => l.startsWith("- ")) ?? ""),
    chars: context.length,
  };
}
