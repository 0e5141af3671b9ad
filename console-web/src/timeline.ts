import { get } from "./api.js";
import { h, route } from "./dom.js";
import type { LinesResult } from "./lines.js";

interface Timeline {
  month: string;
  days: { day: string; path: string; lines: number }[];
}

function shiftMonth(month: string, by: number): string {
  const [y, m] = month.split("-").map(Number) as [number, number];
  const d = new Date(Date.UTC(y, m - 1 + by, 1));
  return d.toISOString().slice(0, 7);
}

/** Entries of a daily log: its bullets and headings with their line numbers. */
function entries(r: LinesResult): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  r.text.split("\n").forEach((text, i) => {
    const line = r.from + i;
    if (/^\s*[-*] /.test(text) || /^#{1,6} /.test(text)) out.push({ line, text });
    else if (text.trim() && out.length && !/^#/.test(out[out.length - 1]!.text))
      out[out.length - 1]!.text += `\n${text}`;
    else if (text.trim()) out.push({ line, text });
  });
  return out;
}

export async function timelinePage(params: URLSearchParams): Promise<HTMLElement> {
  const t = await get<Timeline>("timeline", { month: params.get("month") ?? undefined });
  const selected = params.get("day") ?? "";
  const root = h(
    "section",
    { id: "timeline" },
    h("h1", {}, "Timeline"),
    h(
      "p",
      {},
      h("a", { href: route("timeline", { month: shiftMonth(t.month, -1) }) }, "← previous"),
      ` ${t.month} `,
      h("a", { href: route("timeline", { month: shiftMonth(t.month, 1) }) }, "next →"),
      h("span", { class: "muted" }, ` · ${t.days.length} days with a daily log`),
    ),
  );
  const has = new Map(t.days.map((d) => [d.day, d]));
  const strip = h("div", { class: "strip" });
  const first = new Date(`${t.month}-01T00:00:00Z`).getUTCDay();
  for (let i = 0; i < (first + 6) % 7; i++) strip.append(h("div", {}));
  const count = new Date(Date.UTC(Number(t.month.slice(0, 4)), Number(t.month.slice(5, 7)), 0)).getUTCDate();
  for (let d = 1; d <= count; d++) {
    const day = `${t.month}-${String(d).padStart(2, "0")}`;
    const log = has.get(day);
    const cell = log
      ? h(
          "a",
          { class: `day has${day === selected ? " sel" : ""}`, href: route("timeline", { month: t.month, day }) },
          String(d),
          h("span", { class: "n" }, `${log.lines} lines`),
        )
      : h("div", { class: "day" }, String(d));
    strip.append(cell);
  }
  root.append(strip);
  if (selected && has.has(selected)) {
    const r = await get<LinesResult>("day", { day: selected });
    const list = h("div", { id: "day-entries" }, h("h2", {}, `${selected} — ${r.path}`));
    for (const e of entries(r))
      list.append(
        h(
          "div",
          { class: "entry" },
          h(
            "a",
            { class: "cite", href: route("memory", { path: r.path, from: e.line, to: e.line }) },
            `${r.path}:${e.line}`,
          ),
          h("div", { class: "snippet" }, e.text),
        ),
      );
    root.append(list);
  } else if (!t.days.length) root.append(h("p", { class: "muted" }, "no daily logs this month"));
  return root;
}
