/**
 * The metrics of the asks set (../shared/eval/asks/dev/README.md): how a recall context and a search's
 * hits answer one everyday question. Pure functions over the context text, tested in test/eval-asks.
 */
import type { SearchHit } from "../../src/search/types.js";

export type AskKind = "exact" | "time" | "natural" | "small" | "noise";

export interface AskQuestion {
  id: string;
  workspace: string;
  kind: AskKind;
  question: string;
  asked_on: string;
  target: string[];
  style: string;
  at?: { path: string; line: number };
  window?: { from: string; to: string };
}

export interface AskLine {
  workspace: string;
  path: string;
  line: number;
  date: string | null;
  text: string;
  tag: string;
}

export interface ContextMemory {
  date: string | null;
  path: string;
  startLine: number;
  endLine: number;
  /** The memory's original lines (split at ` ⏎ `, less a bare date heading and `…`). */
  lines: string[];
  raw: string;
}

export interface AskScore {
  id: string;
  workspace: string;
  kind: AskKind;
  style: string;
  chars: number;
  /** exact: a default-limit search hit holds the token; top1: the first does. */
  search?: boolean;
  top1?: boolean;
  /** exact: the context holds the token; natural / small: the target; time: any window bullet. */
  found?: boolean;
  /** natural: the first memory holds the fix. */
  first?: boolean;
  /** time: share of the window's bullets held; share of the context's lines from outside the window. */
  cover?: number;
  outside?: number | null;
  /** small: other entries of the workspace the context holds. */
  others?: number;
  empty?: boolean;
}

const MEMORY_LINE = /^- (?:\[(\d{4}-\d{2}-\d{2})\] )?(.+?):(\d+)-(\d+): (.*)$/;

/** The context's memory lines, each split into its original lines. */
export function contextMemories(context: string): ContextMemory[] {
  const out: ContextMemory[] = [];
  for (const raw of context.split("\n")) {
    const m = MEMORY_LINE.exec(raw);
    if (!m) continue;
    const lines = m[5]!
      .split(" ⏎ ")
      .map((l) => l.trim())
      .filter((l) => l !== "" && l !== "…" && !/^#*\s*\d{4}-\d{2}-\d{2}$/.test(l));
    out.push({ date: m[1] ?? null, path: m[2]!, startLine: Number(m[3]), endLine: Number(m[4]), lines, raw });
  }
  return out;
}

const norm = (s: string) => s.replace(/\s+/g, " ").toLowerCase();

/** The README's match: case-insensitive, as a whole token (no letter or digit right before or after). */
export function appears(target: string, text: string): boolean {
  const t = norm(target);
  const s = norm(text);
  if (t === "") return false;
  for (let i = s.indexOf(t); i >= 0; i = s.indexOf(t, i + 1)) {
    const before = s.slice(0, i);
    const after = s.slice(i + t.length);
    if (/[\p{L}\p{N}]$/u.test(before) || /^[\p{L}\p{N}]/u.test(after)) continue;
    return true;
  }
  return false;
}

export function scoreAsk(
  q: AskQuestion,
  context: string,
  hits: readonly SearchHit[],
  lines: readonly AskLine[],
): AskScore {
  const base: AskScore = { id: q.id, workspace: q.workspace, kind: q.kind, style: q.style, chars: context.length };
  const mems = contextMemories(context);
  const all = mems.map((m) => m.lines.join("\n")).join("\n");
  switch (q.kind) {
    case "exact": {
      const token = q.target[0]!;
      const holds = (h: SearchHit) =>
        appears(token, h.snippet) ||
        (!!q.at && h.path === q.at.path && q.at.line >= h.startLine && q.at.line <= h.endLine);
      return {
        ...base,
        search: hits.some(holds),
        top1: hits.length > 0 && holds(hits[0]!),
        found: appears(token, all),
      };
    }
    case "time": {
      const held = q.target.filter((t) => appears(t, all)).length;
      const w = q.window!;
      const total = mems.reduce((n, m) => n + m.lines.length, 0);
      const outsideLines = mems
        .filter((m) => !m.date || m.date < w.from || m.date > w.to)
        .reduce((n, m) => n + m.lines.length, 0);
      return {
        ...base,
        cover: q.target.length ? held / q.target.length : 0,
        found: held > 0,
        outside: total > 0 ? outsideLines / total : null,
      };
    }
    case "natural":
      return {
        ...base,
        found: q.target.some((t) => appears(t, all)),
        first: mems.length > 0 && q.target.some((t) => appears(t, mems[0]!.lines.join("\n"))),
      };
    case "small": {
      const others = lines.filter(
        (l) => !(q.at && l.path === q.at.path && l.line === q.at.line) && appears(l.text, all),
      ).length;
      return { ...base, found: q.target.some((t) => appears(t, all)), others };
    }
    case "noise":
      return { ...base, empty: context === "" };
  }
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN);
const f2 = (x: number) => (Number.isNaN(x) ? "n/a" : x.toFixed(2).replace(/^0\./, "."));
const rate = (rows: readonly AskScore[], key: keyof AskScore) => mean(rows.map((r) => (r[key] ? 1 : 0)));

export interface AsksSummary {
  n: number;
  exactSearch: number;
  exactTop1: number;
  exactRecall: number;
  time: number;
  timeAny: number;
  timeOutside: number;
  natural: number;
  naturalFirst: number;
  small: number;
  smallOthers: number;
  noiseEmpty: number;
  meanChars: number;
  lines: string[];
}

export function summariseAsks(scores: readonly AskScore[]): AsksSummary {
  const of = (k: AskKind) => scores.filter((s) => s.kind === k);
  const exact = of("exact");
  const time = of("time");
  const natural = of("natural");
  const small = of("small");
  const noise = of("noise");
  const s: Omit<AsksSummary, "lines"> = {
    n: scores.length,
    exactSearch: rate(exact, "search"),
    exactTop1: rate(exact, "top1"),
    exactRecall: rate(exact, "found"),
    time: mean(time.map((t) => t.cover ?? 0)),
    timeAny: rate(time, "found"),
    timeOutside: mean(time.filter((t) => t.outside !== null && t.outside !== undefined).map((t) => t.outside!)),
    natural: rate(natural, "found"),
    naturalFirst: rate(natural, "first"),
    small: rate(small, "found"),
    smallOthers: mean(small.map((t) => t.others ?? 0)),
    noiseEmpty: rate(noise, "empty"),
    meanChars: mean(scores.map((x) => x.chars)),
  };
  const byStyle = (rows: readonly AskScore[], f: (r: AskScore) => number) => {
    const styles = [...new Set(rows.map((r) => r.style))];
    return styles.map((st) => `${st} ${f2(mean(rows.filter((r) => r.style === st).map(f)))}`).join(", ");
  };
  const lines = [
    `asks: ${s.n} questions, exact-search ${f2(s.exactSearch)}, exact-recall ${f2(s.exactRecall)}, time ${f2(s.time)} (outside ${f2(s.timeOutside)}), natural ${f2(s.natural)}, small ${f2(s.small)} (others ${s.smallOthers.toFixed(1)}), noise-empty ${f2(s.noiseEmpty)}`,
    `  exact: search top1 ${f2(s.exactTop1)}; search by form: ${byStyle(exact, (r) => (r.search ? 1 : 0))}; recall by form: ${byStyle(exact, (r) => (r.found ? 1 : 0))}`,
    `  time: any ${f2(s.timeAny)}; cover by form: ${byStyle(time, (r) => r.cover ?? 0)}`,
    `  natural: first ${f2(s.naturalFirst)}; by form: ${byStyle(natural, (r) => (r.found ? 1 : 0))}`,
    `  small: by form: ${byStyle(small, (r) => (r.found ? 1 : 0))}`,
    `  mean context ${s.meanChars.toFixed(0)} chars`,
  ];
  return { ...s, lines };
}
