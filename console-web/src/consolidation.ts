import { currentWorkspace, get, post } from "./api.js";
import { errorBox, h, kv, route } from "./dom.js";

interface Report {
  workspace: string;
  at: string;
  dryRun: boolean;
  entries: number;
  duplicateGroups: number;
  duplicatesHidden: number;
  superseded: number;
  supersessionExamples: string[];
  promotionCandidates: number;
  promoted: number;
  error?: string;
}

interface Candidate {
  hash: string;
  path: string;
  startLine: number;
  endLine: number;
  recalls: number;
  queries: number;
  lastRecall: string;
  text: string;
}

interface Consolidation {
  reports: Report[];
  promotion: { workspace: string; candidates: Candidate[] }[];
}

interface Applied {
  workspace: string;
  applied: number;
  backup?: string;
  heading?: string;
}

function reportCard(r: Report): HTMLElement {
  return h(
    "div",
    { class: "card" },
    h("h3", {}, `${r.workspace} — last run ${new Date(r.at).toLocaleString()}${r.dryRun ? " (dry run)" : ""}`),
    kv([
      ["entries", r.entries],
      ["duplicate groups", `${r.duplicateGroups} (${r.duplicatesHidden} entries hidden behind a newer one)`],
      ["superseded facts", r.superseded],
      ["promotion candidates", r.promotionCandidates],
      ["promoted", r.promoted],
    ]),
    r.supersessionExamples.length
      ? h("ul", { class: "superseded" }, ...r.supersessionExamples.map((x) => h("li", {}, x)))
      : null,
    r.error ? h("p", { class: "error" }, r.error) : null,
  );
}

/** The one write: a first click shows what would be appended and asks; only the second click applies. */
function promotionBlock(workspace: string, candidates: Candidate[]): HTMLElement {
  const box = h("div", { class: "promotion", "data-workspace": workspace });
  const list = h("ul", {});
  for (const c of candidates)
    list.append(
      h(
        "li",
        {},
        h(
          "a",
          { class: "cite", href: route("memory", { path: c.path, from: c.startLine, to: c.endLine }) },
          `${c.path}:${c.startLine}-${c.endLine}`,
        ),
        ` · ${c.recalls} recalls from ${c.queries} queries · `,
        h("code", {}, c.text.split("\n")[0] ?? ""),
      ),
    );
  const ask = h("button", { type: "button", id: "promote-ask" }, `Promote ${candidates.length} to MEMORY.md…`);
  box.append(h("h3", {}, `${workspace}: ${candidates.length} promotion candidates`), list, ask);
  ask.addEventListener("click", () => {
    ask.disabled = true;
    const confirmBtn = h(
      "button",
      { type: "button", class: "danger", id: "promote-confirm" },
      "Yes, append them to MEMORY.md",
    );
    const cancel = h("button", { type: "button", id: "promote-cancel" }, "Cancel");
    const panel = h(
      "div",
      { class: "confirm", id: "promote-panel" },
      h(
        "p",
        {},
        `This appends ${candidates.length} entries to MEMORY.md of ${workspace} under a dated heading. MEMORY.md is copied to a backup first.`,
      ),
      h("pre", { class: "block" }, candidates.map((c) => c.text).join("\n")),
      confirmBtn,
      " ",
      cancel,
    );
    cancel.addEventListener("click", () => {
      panel.remove();
      ask.disabled = false;
    });
    confirmBtn.addEventListener("click", () => {
      confirmBtn.disabled = true;
      post<Applied[]>("promote", { confirm: true, workspace }).then(
        (out) => {
          const r = out[0];
          panel.replaceChildren(
            h(
              "p",
              { class: "ok", id: "promote-done" },
              `Appended ${r?.applied ?? 0} entries under "${r?.heading ?? ""}"${r?.backup ? ` (backup: ${r.backup})` : ""}.`,
            ),
          );
        },
        (e: unknown) => panel.append(errorBox(e)),
      );
    });
    box.append(panel);
  });
  return box;
}

export async function consolidationPage(): Promise<HTMLElement> {
  const c = await get<Consolidation>("consolidation");
  const root = h("section", { id: "consolidation" }, h("h1", {}, "Consolidation"));
  root.append(h("h2", {}, "Duplicates and superseded facts (latest run)"));
  if (c.reports.length) root.append(h("div", { class: "grid" }, ...c.reports.map(reportCard)));
  else
    root.append(
      h("p", { class: "muted" }, "no consolidation run yet (it runs on the schedule, or `cortexd consolidate`)"),
    );
  root.append(h("h2", {}, "Promotion to MEMORY.md"));
  const withCandidates = c.promotion.filter((p) => p.candidates.length);
  if (!withCandidates.length)
    root.append(
      h(
        "p",
        { class: "muted", id: "no-candidates" },
        "no candidates: a memory recalled ≥ 3 times from ≥ 3 queries in 30 days becomes one",
      ),
    );
  for (const p of withCandidates) root.append(promotionBlock(p.workspace || currentWorkspace(), p.candidates));
  return root;
}
