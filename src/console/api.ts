import type { LatencyWindow } from "../daemon/latency.js";
import { VERSION } from "../version.js";
import { ConsoleCallError, type ConsoleCall } from "./calls.js";
import { dailyLogPath, monthDays, monthOf } from "./timeline.js";

/**
 * The console page's JSON endpoints: each one or a few socket-API calls (calls.ts), in the private
 * scope, with the page's parameters checked here and again by the method's own schema.
 */

export interface ApiDeps {
  call: ConsoleCall;
  latency: LatencyWindow;
  csrf: string;
  now?: () => Date;
}

export type Query = URLSearchParams;

const HOUR = 3600_000;

function text(q: Query, name: string, max = 2000): string | undefined {
  const v = q.get(name);
  if (v === null || v === "") return undefined;
  if (v.length > max) throw new ConsoleCallError(400, `${name} is longer than ${max} characters`);
  return v;
}

function int(q: Query, name: string, min: number, max: number): number | undefined {
  const v = text(q, name, 12);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ConsoleCallError(400, `${name} must be an integer from ${min} to ${max}`);
  return n;
}

function ws(q: Query): { workspace?: string } {
  const w = text(q, "workspace", 4096);
  return w ? { workspace: w } : {};
}

const asConsole = { client: "console", audit: false } as const;

/** The index over time for the Overview's plot: by month, or by day while the memories span under 3 months. */
async function indexHistory(call: ConsoleCall, w: { workspace?: string }, signal: AbortSignal) {
  const months = await call("index.history", { by: "month", scope: "private", ...w }, signal);
  return months.periods.length >= 3 ? months : call("index.history", { by: "day", scope: "private", ...w }, signal);
}

/** GET endpoints: path → handler. */
export function getRoutes(d: ApiDeps): Map<string, (q: Query, signal: AbortSignal) => Promise<unknown>> {
  const { call } = d;
  const now = d.now ?? (() => new Date());
  return new Map<string, (q: Query, signal: AbortSignal) => Promise<unknown>>([
    ["/api/session", async () => ({ csrf: d.csrf, version: VERSION })],
    [
      "/api/overview",
      async (q, signal) => {
        const status = await call("cortex.status", {}, signal);
        const history = await indexHistory(call, ws(q), signal);
        const series = (kind: "search" | "recall") => ({
          hour: d.latency.series(kind, HOUR, 5 * 60_000),
          day: d.latency.series(kind, 24 * HOUR, HOUR),
        });
        const { config: _config, ...rest } = status;
        return { status: rest, history, latency: { search: series("search"), recall: series("recall") } };
      },
    ],
    [
      "/api/timeline",
      async (q) => {
        const month = text(q, "month", 7) ?? monthOf(now());
        return { month, days: await monthDays(call, month, ws(q).workspace) };
      },
    ],
    [
      "/api/day",
      async (q, signal) => {
        const day = text(q, "day", 10) ?? "";
        const from = int(q, "from", 1, 10_000_000) ?? 1;
        return call("memory.get", { path: dailyLogPath(day), from, lines: 400, scope: "private", ...ws(q) }, signal);
      },
    ],
    [
      "/api/lines",
      async (q, signal) => {
        const path = text(q, "path", 4096);
        if (!path) throw new ConsoleCallError(400, "path is required");
        const from = int(q, "from", 1, 10_000_000) ?? 1;
        const lines = int(q, "lines", 1, 400) ?? 40;
        return call("memory.get", { path, from, lines, scope: "private", ...ws(q) }, signal);
      },
    ],
    [
      "/api/search",
      async (q, signal) => {
        const query = text(q, "q", 2000) ?? "";
        const limit = int(q, "limit", 1, 50) ?? 10;
        return call("memory.search", { query, limit, explain: true, scope: "private", ...ws(q), ...asConsole }, signal);
      },
    ],
    [
      "/api/recall",
      async (q, signal) => {
        const query = text(q, "q", 10_000) ?? "";
        const scope = text(q, "scope", 10) ?? "private";
        if (scope !== "private" && scope !== "group") throw new ConsoleCallError(400, 'scope is "private" or "group"');
        const group = scope === "group" ? text(q, "group", 512) : undefined;
        const host = text(q, "host", 20) ?? "generic";
        // What each host's hook asks: OpenClaw puts MEMORY.md/USER.md in its prompt itself (excludeCurated).
        const hostParams = host === "openclaw" ? { excludeCurated: true } : {};
        if (!["generic", "openclaw", "claude-code"].includes(host))
          throw new ConsoleCallError(400, 'host is "generic", "claude-code" or "openclaw"');
        return call(
          "memory.recall",
          { query, scope, ...(group ? { group } : {}), ...hostParams, explain: true, ...ws(q), ...asConsole },
          signal,
        );
      },
    ],
    [
      "/api/audit",
      async (q, signal) => {
        const since = text(q, "since", 64);
        const session_id = text(q, "session", 512);
        const limit = int(q, "limit", 1, 1000) ?? 200;
        return call(
          "audit.tail",
          { limit, ...(since ? { since } : {}), ...(session_id ? { session_id } : {}) },
          signal,
        );
      },
    ],
    [
      "/api/consolidation",
      async (q, signal) => {
        const reports = (await call("consolidate.report", { limit: 1, ...ws(q) }, signal)).reports;
        const promotion = await call("promote.list", ws(q), signal);
        return { reports, promotion };
      },
    ],
  ]);
}

/** The one write: applies the promotion candidates of a workspace, only with `confirm: true` in the body. */
export async function postPromote(d: ApiDeps, body: unknown, signal: AbortSignal): Promise<unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new ConsoleCallError(400, 'expected a JSON object {"confirm": true, "workspace"?: name}');
  const b = body as { confirm?: unknown; workspace?: unknown };
  if (b.confirm !== true)
    throw new ConsoleCallError(400, 'not confirmed: the promotion is applied only with "confirm": true');
  if (b.workspace !== undefined && typeof b.workspace !== "string")
    throw new ConsoleCallError(400, "workspace must be a string");
  return d.call("promote.apply", b.workspace ? { workspace: b.workspace } : {}, signal);
}
