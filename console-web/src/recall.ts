import { get } from "./api.js";
import { h, route } from "./dom.js";

interface RecallResult {
  context: string;
  memories: { path: string; startLine: number; endLine: number; score: number }[];
  memory_count: number;
  tokens_used: number;
  explain?: {
    relevance: string;
    empty?: string;
    candidates: {
      path: string;
      startLine: number;
      endLine: number;
      score: number;
      kept: boolean;
      injected: boolean;
      reason: string;
    }[];
  };
}

function select(name: string, value: string, options: [string, string][]): HTMLSelectElement {
  const el = h("select", { name });
  for (const [v, label] of options) el.append(h("option", { value: v, selected: v === value }, label));
  return el;
}

export async function recallPage(params: URLSearchParams): Promise<HTMLElement> {
  const q = params.get("q") ?? "";
  const host = params.get("host") ?? "generic";
  const scope = params.get("scope") ?? "private";
  const input = h("input", { type: "text", name: "q", value: q, placeholder: "a prompt, as the agent would get it" });
  const hostSel = select("host", host, [
    ["generic", "any host (MCP, CLI)"],
    ["claude-code", "Claude Code"],
    ["openclaw", "OpenClaw (MEMORY.md left to the host)"],
  ]);
  const scopeSel = select("scope", scope, [
    ["private", "private (the user's own session)"],
    ["group", "group (a group conversation)"],
  ]);
  const form = h("form", { class: "bar" }, input, hostSel, scopeSel, h("button", { type: "submit" }, "Preview"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    location.hash = route("recall", { q: input.value, host: hostSel.value, scope: scopeSel.value });
  });
  const root = h("section", { id: "recall" }, h("h1", {}, "Recall preview"), form);
  if (!q) return root;
  const r = await get<RecallResult>("recall", { q, host, scope });
  if (r.context) {
    root.append(
      h("p", { class: "muted" }, `${r.memory_count} memories · ${r.tokens_used} tokens — the block a hook injects:`),
      h("pre", { class: "block", id: "recall-block" }, r.context),
    );
  } else {
    root.append(
      h("p", { class: "empty", id: "recall-empty" }, `Nothing injected: ${r.explain?.empty ?? "no memory matched"}`),
    );
  }
  const cands = r.explain?.candidates ?? [];
  if (cands.length) {
    const table = h(
      "table",
      { id: "candidates" },
      h("tr", {}, ...["memory", "score", "verdict", "why"].map((t) => h("th", {}, t))),
    );
    for (const c of cands.slice(0, 30))
      table.append(
        h(
          "tr",
          {},
          h(
            "td",
            {},
            h(
              "a",
              { href: route("memory", { path: c.path, from: c.startLine, to: c.endLine }) },
              `${c.path}:${c.startLine}-${c.endLine}`,
            ),
          ),
          h("td", {}, c.score.toFixed(3)),
          h(
            "td",
            { class: c.injected ? "ok" : "muted" },
            c.injected ? "injected" : c.kept ? "kept, not injected" : "dropped",
          ),
          h("td", {}, c.reason),
        ),
      );
    root.append(h("h2", {}, "Candidates"), table);
  }
  return root;
}
