import { h, s } from "./dom.js";

type Kind = "daily" | "transcript" | "note" | "curated";
type KindCounts = Record<Kind, number>;

/** The index over time (the socket API's `index.history`). */
export interface History {
  workspace: string;
  by: "day" | "month";
  periods: { period: string; files: KindCounts; chunks: KindCounts }[];
  before: { files: KindCounts; chunks: KindCounts };
  total: { files: number; chunks: number };
}

const KINDS: { kind: Kind; label: string }[] = [
  { kind: "daily", label: "daily logs" },
  { kind: "transcript", label: "transcripts" },
  { kind: "note", label: "notes" },
  { kind: "curated", label: "MEMORY.md / USER.md" },
];

const sum = (c: KindCounts) => c.daily + c.transcript + c.note + c.curated;
/** 99836 → "99.8k": an axis label that fits its margin. */
const short = (n: number) =>
  n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e4 ? `${(n / 1e3).toFixed(1)}k` : String(n);

/**
 * An SVG plot of the index over time: per day or month, the chunks of the memories dated then as bars
 * stacked by kind, and the index's size so far as a line (its own scale, on the right). Each bar's
 * title says its files and chunks.
 */
export function historyChart(hist: History): HTMLElement {
  const W = 1100;
  const H = 160;
  const L = 40;
  const R = 60;
  const B = 18;
  const n = hist.periods.length;
  const max = Math.max(1, ...hist.periods.map((p) => sum(p.chunks)));
  const slot = (W - L - R) / Math.max(1, n);
  const y = (v: number, top: number) => H - B - (v / top) * (H - B - 8);
  const svg = s(
    "svg",
    {
      class: "chart history",
      viewBox: `0 0 ${W} ${H}`,
      width: W,
      height: H,
      role: "img",
      "aria-label": `index over time, by ${hist.by}`,
    },
    s("line", { class: "axis", x1: L, y1: H - B, x2: W - R, y2: H - B }),
    s("line", { class: "axis", x1: L, y1: 6, x2: L, y2: H - B }),
    s("text", { x: 2, y: 12 }, short(max)),
    s("text", { x: 2, y: H - B }, "0"),
    s("text", { x: W - R + 4, y: H - B }, "0"),
  );
  let sofar = sum(hist.before.chunks);
  const cumulative: [number, number][] = [];
  hist.periods.forEach((p, i) => {
    const x = L + i * slot;
    const bar = s("g", { class: "bar", "data-period": p.period });
    let base = 0;
    for (const { kind } of KINDS) {
      const v = p.chunks[kind];
      if (!v) continue;
      bar.append(
        s("rect", {
          class: `k-${kind}`,
          x: (x + slot * 0.1).toFixed(1),
          width: Math.max(1, slot * 0.8).toFixed(1),
          y: y(base + v, max).toFixed(1),
          height: (y(base, max) - y(base + v, max)).toFixed(1),
        }),
      );
      base += v;
    }
    const parts = KINDS.filter(({ kind }) => p.chunks[kind] || p.files[kind]).map(
      ({ kind, label }) => `${label} ${p.files[kind]} files, ${p.chunks[kind]} chunks`,
    );
    bar.append(s("title", {}, `${p.period}: ${sum(p.files)} files, ${sum(p.chunks)} chunks (${parts.join("; ")})`));
    svg.append(bar);
    sofar += sum(p.chunks);
    cumulative.push([x + slot / 2, sofar]);
  });
  const top = Math.max(1, sofar);
  if (cumulative.length > 1)
    svg.append(
      s("polyline", {
        class: "cumulative",
        points: cumulative.map(([x, v]) => `${x.toFixed(1)},${y(v, top).toFixed(1)}`).join(" "),
      }),
    );
  svg.append(s("text", { x: W - R + 4, y: 12 }, `${short(top)} total`));
  if (n > 0) {
    svg.append(s("text", { x: L, y: H - 4 }, hist.periods[0]!.period));
    if (n > 1) svg.append(s("text", { x: W - R - 58, y: H - 4 }, hist.periods[n - 1]!.period));
  }
  return h(
    "div",
    { class: "card wide", id: "history" },
    h("h3", {}, `Chunks added per ${hist.by}, by the date of their memories, and the total`),
    n > 0 ? svg : h("p", { class: "empty" }, "Nothing indexed yet."),
    h(
      "div",
      { class: "legend" },
      ...KINDS.map(({ kind, label }) => h("span", { class: `l-${kind}` }, `■ ${label}`)),
      h("span", { class: "l-total" }, "— total"),
      h("span", { class: "muted" }, `${hist.total.files} files, ${hist.total.chunks} chunks in ${hist.workspace}`),
    ),
  );
}
