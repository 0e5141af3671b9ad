import { h, s } from "./dom.js";

export interface Point {
  at: number;
  p50: number;
  p95: number;
  count: number;
}

/** A small SVG time-series plot of p50 (solid) and p95 (dashed) latency, ms. */
export function latencyChart(title: string, points: Point[], spanMs: number): HTMLElement {
  const W = 360;
  const H = 130;
  const L = 36;
  const B = 18;
  const end = Date.now();
  const start = end - spanMs;
  const max = Math.max(1, ...points.map((p) => p.p95));
  const x = (t: number) => L + ((t - start) / spanMs) * (W - L - 6);
  const y = (v: number) => H - B - (v / max) * (H - B - 8);
  const line = (key: "p50" | "p95") => points.map((p) => `${x(p.at).toFixed(1)},${y(p[key]).toFixed(1)}`).join(" ");
  const svg = s(
    "svg",
    { class: "chart", viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", "aria-label": title },
    s("line", { class: "axis", x1: L, y1: H - B, x2: W - 4, y2: H - B }),
    s("line", { class: "axis", x1: L, y1: 6, x2: L, y2: H - B }),
    s("text", { x: 2, y: 12 }, `${max.toFixed(max < 10 ? 1 : 0)} ms`),
    s("text", { x: 2, y: H - B }, "0"),
    s("text", { x: L, y: H - 4 }, spanMs > 3600_000 ? "−24 h" : "−1 h"),
    s("text", { x: W - 30, y: H - 4 }, "now"),
  );
  if (points.length === 1) {
    svg.append(s("circle", { cx: x(points[0]!.at), cy: y(points[0]!.p50), r: 3, class: "p50" }));
    svg.append(s("circle", { cx: x(points[0]!.at), cy: y(points[0]!.p95), r: 3, class: "p95" }));
  } else if (points.length > 1) {
    svg.append(s("polyline", { class: "p95", points: line("p95") }));
    svg.append(s("polyline", { class: "p50", points: line("p50") }));
  }
  const calls = points.reduce((n, p) => n + p.count, 0);
  return h(
    "div",
    { class: "card" },
    h("h3", {}, title),
    svg,
    h(
      "div",
      { class: "legend" },
      h("span", { class: "l50" }, "— p50"),
      h("span", { class: "l95" }, "- - p95"),
      h("span", { class: "muted" }, `${calls} calls`),
    ),
  );
}
