/** The console's JSON endpoints (same origin; the HttpOnly cookie goes along by itself). */
let csrf = "";
let workspace = "";

export function setWorkspace(name: string): void {
  workspace = name;
}

export function currentWorkspace(): string {
  return workspace;
}

export async function get<T>(path: string, params: Record<string, string | number | undefined> = {}): Promise<T> {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  if (workspace && !q.has("workspace")) q.set("workspace", workspace);
  const res = await fetch(`/api/${path}${q.size ? `?${q}` : ""}`, { credentials: "same-origin" });
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
