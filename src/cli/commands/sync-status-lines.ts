import type { WorkspaceStatus } from "../../rpc/protocol.js";

/** The status lines of a workspace's sync state: team workspace, conflicts, the scheduled git sync. */
export function syncStatusLines(w: WorkspaceStatus, ago: (iso: string | null) => string): string[] {
  const lines: string[] = [];
  if (w.shared) lines.push("    team workspace (shared): never private; saves land here only when it is named");
  const c = w.conflicts;
  if (c?.files.length)
    lines.push(
      `    GIT CONFLICT in ${c.files.join(", ")}: indexed without the markers; saves go to a saved-during-conflict sidecar`,
    );
  if (c?.copies.length) lines.push(`    conflict copies: ${c.copies.map((x) => `${x.path} (of ${x.of})`).join(", ")}`);
  if (c) lines.push(`    fix: ${c.fix}`);
  const g = w.gitSync;
  if (g) {
    const state = g.state === "stopped" ? "STOPPED" : g.state === "error" ? "ERROR" : g.state;
    lines.push(
      `    git sync (${g.schedule}): ${state}, last ${ago(g.lastRun)}${g.lastResult ? ` (${g.lastResult})` : ""}`,
    );
    if (g.fix && g.state !== "ok") lines.push(`    git sync fix: ${g.fix}`);
  }
  return lines;
}
