/**
 * Building the page without innerHTML: every string becomes a text node or an attribute value, so
 * whatever a memory holds is shown as text, never parsed as markup (and the CSP forbids inline script).
 */
export type Child = Node | string | number | null | undefined | false;
export type Attrs = Record<string, string | number | boolean | undefined | ((e: Event) => void)>;

function apply(el: Element, attrs: Attrs): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === "function") {
      if (!k.startsWith("on")) throw new Error(`handler for ${k}: name it on<event>`);
      el.addEventListener(k.slice(2).toLowerCase(), v);
    } else if (k.startsWith("on")) throw new Error(`attribute ${k}: inline handlers are not allowed`);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
}

function append(el: Element, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

export function s<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

/** A link inside the app (hash route) with its parameters. */
export function route(page: string, params: Record<string, string | number | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  const qs = q.toString();
  return `#/${page}${qs ? `?${qs}` : ""}`;
}

export function errorBox(e: unknown): HTMLElement {
  return h("p", { class: "error" }, e instanceof Error ? e.message : String(e));
}

export function ago(iso: string | null | undefined): string {
  if (!iso) return "never";
  const s = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86400)}d ago`;
}

export function kv(rows: [string, Child][]): HTMLElement {
  const dl = h("dl", { class: "kv" });
  for (const [k, v] of rows) dl.append(h("dt", {}, k), h("dd", {}, v));
  return dl;
}
