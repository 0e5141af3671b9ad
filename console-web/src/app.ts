import { auditPage } from "./audit.js";
import { get, setWorkspace } from "./api.js";
import { consolidationPage } from "./consolidation.js";
import { errorBox, h } from "./dom.js";
import { memoryPage } from "./memory.js";
import { overviewPage, type Overview } from "./overview.js";
import { recallPage } from "./recall.js";
import { searchPage } from "./search.js";
import { timelinePage } from "./timeline.js";

/** The console's pages, routed by the location hash (#/search?q=…): one small app, no framework. */
const PAGES: Record<string, { title: string; render: (p: URLSearchParams) => Promise<HTMLElement> }> = {
  overview: { title: "Overview", render: overviewPage },
  timeline: { title: "Timeline", render: timelinePage },
  search: { title: "Search", render: searchPage },
  recall: { title: "Recall preview", render: recallPage },
  audit: { title: "Audit", render: auditPage },
  consolidation: { title: "Consolidation", render: consolidationPage },
  memory: { title: "Memory", render: memoryPage },
};

let generation = 0;
/** The first page's content is in the DOM: the `cortexd:first-view` mark (what `bench console` and the browser test read). */
let firstView = false;

function parseHash(): { page: string; params: URLSearchParams } {
  const raw = location.hash.replace(/^#\/?/, "");
  const [page = "", query = ""] = raw.split("?", 2) as [string?, string?];
  return { page: Object.hasOwn(PAGES, page) ? page : "overview", params: new URLSearchParams(query) };
}

async function render(): Promise<void> {
  const { page, params } = parseHash();
  const mine = ++generation;
  const main = document.getElementById("main")!;
  for (const a of document.querySelectorAll("#nav a"))
    a.classList.toggle("active", a.getAttribute("data-page") === page);
  document.title = `cortexd — ${PAGES[page]!.title}`;
  main.setAttribute("aria-busy", "true");
  let el: HTMLElement;
  try {
    el = await PAGES[page]!.render(params);
  } catch (e) {
    el = errorBox(e);
  }
  if (mine !== generation) return; // a newer navigation won
  main.replaceChildren(el);
  main.setAttribute("aria-busy", "false");
  main.setAttribute("data-page", page);
  if (!firstView) {
    firstView = true;
    performance.mark("cortexd:first-view", { detail: page });
  }
}

async function workspaces(): Promise<void> {
  const select = document.getElementById("workspace") as HTMLSelectElement;
  const o = await get<Overview>("overview");
  for (const w of o.status.workspaces) select.append(h("option", { value: w.name }, w.name));
  select.addEventListener("change", () => {
    setWorkspace(select.value);
    void render();
  });
}

function start(): void {
  const nav = document.getElementById("nav")!;
  for (const [name, p] of Object.entries(PAGES))
    if (name !== "memory") nav.append(h("a", { href: `#/${name}`, "data-page": name }, p.title));
  window.addEventListener("hashchange", () => void render());
  void render();
  void workspaces().catch(() => {});
}

start();
