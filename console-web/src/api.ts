/** The console's JSON endpoints (same origin; the HttpOnly cookie goes along by itself). */
let csrf = "";
let workspace = "";

export function setWorkspace(name: string): void {
  workspace = name;
}

export function currentWorkspace(): string {
  return workspace;
}

/** GETs in flight by URL: two parts of the page asking the same thing at once share one request. */
const inflight = new Map<string, Promise<unknown>>();

export function get<T>(path: string, params: Record<string, string | number | undefined> = {}): Promise<T> {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  if (workspace && !q.has("workspace")) q.set("workspace", workspace);
  const url = `/api/${path}${q.size ? `?${q}` : ""}`;
  const pending = inflight.get(url);
  if (pending) return pending as Promise<T>;
  const p = fetchJson<T>(url).finally(() => inflight.delete(url));
  inflight.set(url, p);
  return p;
}

async function fetchJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { credentials: "same-origin" });
  const body = (await res.json()) as T & { error?: string };
  if (!res.ok) throw new Error(body.error ?? `${res.status} ${res.statusText}`);
  return body;
}

export async function post<T>(path: string, body: unknown): Promise<T> {
  if (!csrf) csrf = (await get<{ csrf: string }>("session")).csrf;
  const res = await fetch(`/api/${path}`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-Cortexd-Csrf": csrf },
    body: JSON.stringify(body),
  });
  const out = (await res.json()) as T & { error?: string };
  if (!res.ok) throw new Error(out.error ?? `${res.status} ${res.statusText}`);
  return out;
}
