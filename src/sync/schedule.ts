import type { WorkspaceEngine } from "../engine/engine.js";
import type { Scheduler } from "../daemon/scheduler.js";
import type { GitSync } from "./git-sync.js";

/** One scheduled job per workspace with `sync.git` (a cron expression) in its config. */
export function scheduleGitSync(git: GitSync, workspaces: readonly WorkspaceEngine[], scheduler: Scheduler): void {
  for (const ws of workspaces) {
    const cron = ws.config.sync?.git;
    if (!cron) continue;
    git.register(ws, cron);
    scheduler.add({ name: `git-sync:${ws.name}`, cron, run: () => git.run(ws) });
  }
}
