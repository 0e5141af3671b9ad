import { existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { spawnDaemon, stopDaemon, waitIndexed } from "./daemon-proc.js";
import { generateWorkspace, rng, sampleQuery } from "./generate.js";
import { SCALE_SIZE_FACTOR } from "./scale-bench.js";
import { benchPath, fmtMs, freshDir, median, type Args } from "./util.js";

/** What the page's own performance timeline says about one load of the console. */
interface LoadTrace {
  /** The console's `cortexd:first-view` mark: navigation start (the token redirect included) to the first page rendered. */
  firstView: number;
  redirectEnd: number;
  htmlEnd: number;
  domContentLoaded: number;
  /** Each fetched resource: its path, start and end (ms from navigation start). */
  resources: { path: string; start: number; end: number }[];
}

/** Read in the page: the mark the app sets when its first view is in the DOM, and the navigation/resource timings. */
const READ_TRACE = `(() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const mark = performance.getEntriesByName("cortexd:first-view")[0];
  return {
    firstView: mark ? mark.startTime : -1,
    redirectEnd: nav.redirectEnd,
    htmlEnd: nav.responseEnd,
    domContentLoaded: nav.domContentLoadedEventEnd,
    resources: performance.getEntriesByType("resource").map((r) => ({
      path: new URL(r.name).pathname + new URL(r.name).search,
      start: r.startTime,
      end: r.responseEnd,
    })),
  };
})()`;

async function loadOnce(browser: Browser, url: string, page: string, shot?: string): Promise<LoadTrace> {
  // A fresh context each time: no cookie, no cache — the first visit of `cortexd ui`'s URL.
  const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  try {
    const p = await ctx.newPage();
    await p.goto(page === "overview" ? url : `${url}#/${page}`);
    await p.waitForSelector(`#main[data-page="${page}"][aria-busy="false"]`, { timeout: 60_000 });
    const trace = (await p.evaluate(READ_TRACE)) as LoadTrace;
    if (trace.firstView < 0)
      throw new Error("the page set no cortexd:first-view mark (an older build of the console?)");
    if (shot) {
      mkdirSync(dirname(shot), { recursive: true });
      await p.screenshot({ path: shot });
    }
    return trace;
  } finally {
    await ctx.close();
  }
}

function show(t: LoadTrace): string {
  const api = t.resources.filter((r) => r.path.startsWith("/api/"));
  const assets = t.resources.filter((r) => r.path.startsWith("/assets/"));
  const lastAsset = Math.max(0, ...assets.map((r) => r.end));
  return (
    `first view ${fmtMs(t.firstView)} (redirect ${fmtMs(t.redirectEnd)}, html ${fmtMs(t.htmlEnd)}, ` +
    `${assets.length} assets by ${fmtMs(lastAsset)}, DOMContentLoaded ${fmtMs(t.domContentLoaded)}; ` +
    api.map((r) => `${r.path} ${fmtMs(r.start)}→${fmtMs(r.end)}`).join(", ") +
    ")"
  );
}

/**
 * `npm run bench -- console [--files 10000] [--seed 42] [--runs 6] [--page overview] [--shot PATH] [--chromium PATH] [--verbose]`:
 * the console's first view on the scale bench's index (its generator and size: 10,000 files ≈ 100,000
 * chunks, with vectors; the index `bench scale` built is reused when it is there). A real daemon, Debian's
 * chromium through playwright-core, a fresh browser context per run (no cookie, no cache: the URL
 * `cortexd ui` opens, its token redirect included). The figure is the page's own `cortexd:first-view`
 * performance mark; the first run also pays the browser's own warm-up and is shown apart.
 */
export async function benchConsole(args: Args): Promise<void> {
  const files = Number(args.flags.files ?? 10_000);
  const seed = Number(args.flags.seed ?? 42);
  const runs = Math.max(2, Number(args.flags.runs ?? 6));
  const page = String(args.flags.page ?? "overview");
  const executablePath = String(args.flags.chromium ?? process.env.CORTEXD_CHROMIUM ?? "/usr/bin/chromium");
  if (!existsSync(executablePath)) throw new Error(`no chromium at ${executablePath}: apt-get install chromium`);
  const root = benchPath(`ws-scale-${files}-${seed}`);
  const gen = generateWorkspace(root, files, seed, true, SCALE_SIZE_FACTOR);
  const homePath = benchPath(`home-scale-${files}-hybrid`);
  const reused = existsSync(join(homePath, "data", "cortexd", "indexes"));
  const home = reused ? homePath : freshDir(homePath);
  const t0 = performance.now();
  const r = await spawnDaemon({
    home,
    root,
    provider: "auto",
    extra: { schedule: { heartbeat: "0 0 1 1 *", consolidation: "0 0 1 1 *" } },
  });
  try {
    const st = await waitIndexed(r, "auto", undefined, 1000);
    const w = st.workspaces[0]!;
    console.log(
      `index: ${w.files} files, ${w.chunks} chunks, ${w.vectors} vectors, ${(gen.bytes / 1e6).toFixed(0)} MB ` +
        `(${reused ? "existing index, re-synced" : "cold index"} in ${fmtMs(performance.now() - t0)}); node ${process.version}`,
    );
    // Some searches and recalls first, so the overview's latency plots have points to draw.
    const rq = rng(2024);
    for (let i = 0; i < 60; i++) {
      const query = sampleQuery(rq);
      if (i % 3) await r.client.call("memory.search", { query });
      else await r.client.call("memory.recall", { query });
    }
    const { url } = await r.client.call("console.open", {});
    const browser = await chromium.launch({ executablePath, args: ["--no-sandbox"] });
    try {
      console.log(`chromium ${browser.version()}, page "${page}", ${runs} loads, each in a fresh context`);
      const traces: LoadTrace[] = [];
      for (let i = 0; i < runs; i++) {
        const shot = i === runs - 1 && args.flags.shot ? resolve(String(args.flags.shot)) : undefined;
        const t = await loadOnce(browser, url, page, shot);
        traces.push(t);
        console.log(`  load ${i + 1}${i === 0 ? " (browser's first)" : ""}: ${show(t)}`);
        if (args.flags.verbose)
          for (const x of t.resources) console.log(`    ${x.path}: ${fmtMs(x.start)} → ${fmtMs(x.end)}`);
      }
      const warm = traces.slice(1).map((t) => t.firstView);
      console.log(
        `first view: ${fmtMs(traces[0]!.firstView)} on the browser's first load; ` +
          `median ${fmtMs(median(warm))}, max ${fmtMs(Math.max(...warm))} over the next ${warm.length}`,
      );
      if (args.flags.shot) console.log(`screenshot: ${resolve(String(args.flags.shot))}`);
    } finally {
      await browser.close();
    }
  } finally {
    await stopDaemon(r);
  }
}
