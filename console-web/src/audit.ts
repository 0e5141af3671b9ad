import { get } from "./api.js";
import { h, route } from "./dom.js";

interface AuditEntry {
  at: string;
  method: string;
  client?: string;
  session?: string;
  workspace: string;
  scope: string;
  query?: string;
  memories: { path: string; startLine: number; endLine: number; visibility: string; bytes: number }[];
  bytes: number;
}

interface AuditTail {
  enabled: boolean;
  path: string;
  entries: AuditEntry[];
}

export async function auditPage(params: URLSearchParams): Promise<HTMLElement> {
  const filter = {
    session: params.get("session") ?? "",
    since: params.get("since") ?? "",
    client: params.get("client") ?? "",
    text: params.get("text") ?? "",
  };
  const inputs = {
    session: h("input", { type: "text", name: "session", value: filter.session, placeholder: "session id" }),
    since: h("input", { type: "text", name: "since", value: filter.since, placeholder: "since: 2h, 7d, ISO date" }),
    client: h("input", {
      type: "text",
      name: "client",
      value: filter.client,
      placeholder: "host (claude-code, openclaw…)",
    }),
    text: h("input", { type: "text", name: "text", value: filter.text, placeholder: "query or path contains" }),
  };
  const form = h("form", { class: "bar" }, ...Object.values(inputs), h("button", { type: "submit" }, "Filter"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    location.hash = route("audit", {
      session: inputs.session.value,
      since: inputs.since.value,
      client: inputs.client.value,
      text: inputs.text.value,
    });
  });
  const root = h("section", { id: "audit" }, h("h1", {}, "Audit — what was given to which session"), form);
  const tail = await get<AuditTail>("audit", { session: filter.session, since: filter.since });
  const needle = filter.text.toLowerCase();
  const rows = tail.entries
    .filter((e) => !filter.client || e.client === filter.client)
    .filter(
      (e) =>
        !needle ||
        (e.query ?? "").toLowerCase().includes(needle) ||
        e.memories.some((m) => m.path.toLowerCase().includes(needle)),
    )
    .reverse();
  root.append(
    h(
      "p",
      { class: "muted" },
      `${rows.length} of ${tail.entries.length} entries · log ${tail.enabled ? "on" : "off"} · ${tail.path}`,
    ),
  );
  const table = h(
    "table",
    { id: "audit-entries" },
    h("tr", {}, ...["when", "what", "host", "session", "scope", "query", "memories given"].map((t) => h("th", {}, t))),
  );
  for (const e of rows) {
    const mems = h("td", {});
    for (const m of e.memories)
      mems.append(
        h(
          "div",
          {},
          h(
            "a",
            { class: "cite", href: route("memory", { path: m.path, from: m.startLine, to: m.endLine }) },
            `${m.path}:${m.startLine}-${m.endLine}`,
          ),
          h("span", { class: "muted" }, ` ${m.visibility}`),
        ),
      );
    table.append(
      h(
        "tr",
        { class: "audit-row" },
        h("td", {}, new Date(e.at).toLocaleString()),
        h("td", {}, e.method.replace("memory.", "")),
        h("td", {}, e.client ?? "—"),
        h("td", {}, e.session ? h("a", { href: route("audit", { session: e.session }) }, e.session) : "—"),
        h("td", {}, e.scope),
        h("td", {}, e.query ?? "(hashed)"),
        mems,
      ),
    );
  }
  root.append(table);
  return root;
}
