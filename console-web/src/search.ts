import { get } from "./api.js";
import { errorBox, h, route } from "./dom.js";
import { citedLines } from "./lines.js";

interface Hit {
  path: string;
  startLine: number;
  endLine: number;
  score: number;
  snippet: string;
  source: string;
  explain?: Record<string, number>;
  visibility?: string;
}

interface SearchResponse {
  results: Hit[];
  mode: string;
  model?: string;
  fallback?: string;
  tookMs: number;
  timings?: Record<string, number>;
}

/** One bar per ranking stage (--explain): its value against the largest one among this hit's stages. */
function stageBars(explain: Record<string, number>): HTMLElement {
  const entries = Object.entries(explain).filter(([, v]) => Number.isFinite(v));
  const max = Math.max(1e-9, ...entries.map(([, v]) => Math.abs(v)));
  const box = h("div", { class: "stages" });
  for (const [name, v] of entries) {
    const pct = Math.round((Math.abs(v) / max) * 100);
    const fill = h("div", { class: `fill${v < 0 ? " neg" : ""}`, "data-stage": name });
    fill.style.width = `${pct}%`;
    box.append(h("span", {}, name), h("div", { class: "track" }, fill), h("span", {}, v.toFixed(3)));
  }
  return box;
}

function hitCard(hit: Hit, n: number): HTMLElement {
  const cite = `${hit.path}:${hit.startLine}-${hit.endLine}`;
  const context = h("details", { class: "context" }, h("summary", {}, "lines in context"));
  let loaded = false;
  context.addEventListener("toggle", () => {
    if (!context.open || loaded) return;
    loaded = true;
    citedLines(hit.path, hit.startLine, hit.endLine).then(
      (el) => context.append(el),
      (e: unknown) => context.append(errorBox(e)),
    );
  });
  return h(
    "div",
    { class: "hit" },
    h(
      "div",
      {},
      `${n}. `,
      h("a", { class: "cite", href: route("memory", { path: hit.path, from: hit.startLine, to: hit.endLine }) }, cite),
      h(
        "span",
        { class: "muted" },
        ` · ${hit.source} · score ${hit.score.toFixed(3)}${hit.visibility ? ` · ${hit.visibility}` : ""}`,
      ),
    ),
    h("div", { class: "snippet" }, hit.snippet),
    hit.explain ? stageBars(hit.explain) : null,
    context,
  );
}

export async function searchPage(params: URLSearchParams): Promise<HTMLElement> {
  const q = params.get("q") ?? "";
  const input = h("input", { type: "search", name: "q", value: q, placeholder: "search your memory", autofocus: true });
  const form = h("form", { class: "bar" }, input, h("button", { type: "submit" }, "Search"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    location.hash = route("search", { q: input.value });
  });
  const root = h("section", { id: "search" }, h("h1", {}, "Search"), form);
  if (!q) return root;
  const r = await get<SearchResponse>("search", { q });
  root.append(
    h(
      "p",
      { class: "muted" },
      `${r.results.length} hits · ${r.mode}${r.model ? ` (${r.model})` : ""} · ${r.tookMs.toFixed(1)} ms${r.fallback ? ` · ${r.fallback}` : ""}`,
    ),
  );
  if (r.timings)
    root.append(
      h(
        "p",
        { class: "muted" },
        "stages: ",
        Object.entries(r.timings)
          .map(([k, v]) => `${k} ${v.toFixed(1)} ms`)
          .join(" · "),
      ),
    );
  const list = h("div", { id: "hits" });
  r.results.forEach((hit, i) => list.append(hitCard(hit, i + 1)));
  root.append(list);
  return root;
}
