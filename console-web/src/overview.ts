import { get } from "./api.js";
import { latencyChart, type Point } from "./chart.js";
import { ago, h, kv } from "./dom.js";
import { historyChart, type History } from "./history-chart.js";

interface Workspace {
  name: string;
  root: string;
  files: number;
  chunks: number;
  vectors: number;
  pending: number;
  lastSync: string | null;
  lastError: string | null;
  shared?: boolean;
}

export interface Overview {
  status: {
    version: string;
    healthy: boolean;
    uptimeMs: number;
    rssBytes: number;
    pid: number;
    workspaces: Workspace[];
    embedding: {
      state: string;
      provider: string;
      model?: string;
      dims?: number;
      vectors: string;
      pendingVectors: number;
    };
    watcher: { mode: string; events: number; lastEventAt: string | null; reason?: string };
    schedule: {
      name: string;
      cron: string;
      lastRun: string | null;
      nextRun: string | null;
      lastResult: string | null;
    }[];
    lastHeartbeat: string | null;
    recallMetrics: { count: number; p50: number; p95: number };
    knowledgeState: { memoryDays?: number; oldestMemory?: string | null };
    errors: { at: string; message: string }[];
    audit?: { enabled: boolean; path: string };
  };
  /** The index over time of the workspace shown (by month, or by day for a young index). */
  history: History;
  latency: Record<"search" | "recall", { hour: Point[]; day: Point[] }>;
}

export async function overviewPage(): Promise<HTMLElement> {
  const o = await get<Overview>("overview");
  const st = o.status;
  const root = h("section", { id: "overview" }, h("h1", {}, "Overview"));
  const health = h(
    "div",
    { class: "card" },
    h("h3", {}, "Health"),
    kv([
      ["state", h("span", { class: st.healthy ? "ok" : "warn" }, st.healthy ? "healthy" : "degraded")],
      ["version", st.version],
      ["uptime", `${Math.round(st.uptimeMs / 60000)} min`],
      ["memory", `${Math.round(st.rssBytes / 1048576)} MB`],
      ["memory days", `${st.knowledgeState.memoryDays ?? 0} (since ${st.knowledgeState.oldestMemory ?? "—"})`],
      ["last heartbeat", ago(st.lastHeartbeat)],
      ["audit log", st.audit ? (st.audit.enabled ? "on" : "off") : "—"],
    ]),
  );
  const model = h(
    "div",
    { class: "card" },
    h("h3", {}, "Model and watcher"),
    kv([
      ["embedding", `${st.embedding.provider} · ${st.embedding.state}`],
      ["model", st.embedding.model ?? "—"],
      [
        "vectors",
        `${st.embedding.vectors}${st.embedding.pendingVectors ? ` (${st.embedding.pendingVectors} pending)` : ""}`,
      ],
      ["watcher", `${st.watcher.mode}${st.watcher.reason ? ` (${st.watcher.reason})` : ""}`],
      ["file events", `${st.watcher.events}, last ${ago(st.watcher.lastEventAt)}`],
    ]),
  );
  const sched = h(
    "div",
    { class: "card" },
    h("h3", {}, "Schedule"),
    kv(st.schedule.map((j) => [j.name, `${j.cron} · last ${ago(j.lastRun)} · ${j.lastResult ?? "—"}`])),
  );
  root.append(h("div", { class: "grid" }, health, model, sched));
  const table = h(
    "table",
    { id: "workspaces" },
    h(
      "tr",
      {},
      ...["workspace", "root", "files", "chunks", "vectors", "last sync", "problem"].map((t) => h("th", {}, t)),
    ),
  );
  for (const w of st.workspaces)
    table.append(
      h(
        "tr",
        {},
        h("td", {}, w.name, w.shared ? " (team)" : ""),
        h("td", {}, h("code", {}, w.root)),
        h("td", {}, w.files),
        h("td", {}, w.chunks),
        h("td", {}, w.vectors),
        h("td", {}, ago(w.lastSync)),
        h("td", { class: w.lastError ? "warn" : "muted" }, w.lastError ?? "—"),
      ),
    );
  root.append(h("h2", {}, "Workspaces"), table);
  root.append(h("h2", {}, "Index over time"), historyChart(o.history));
  root.append(
    h("h2", {}, "Latency (p50 / p95)"),
    h(
      "div",
      { class: "grid", id: "latency" },
      latencyChart("recall, last hour", o.latency.recall.hour, 3600_000),
      latencyChart("search, last hour", o.latency.search.hour, 3600_000),
      latencyChart("recall, last day", o.latency.recall.day, 24 * 3600_000),
      latencyChart("search, last day", o.latency.search.day, 24 * 3600_000),
    ),
  );
  if (st.errors.length)
    root.append(
      h("h2", {}, "Recent errors"),
      h("ul", {}, ...st.errors.slice(-10).map((e) => h("li", {}, `${e.at}: ${e.message}`))),
    );
  return root;
}
