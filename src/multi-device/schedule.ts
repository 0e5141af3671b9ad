import type { WorkspaceEngine } from "../engine/engine.js";
import type { Scheduler } from "../daemon/scheduler.js";
import type { GitSync } from "./git-sync.js";

/** Workspaces with `sync.git` (a cron expression) in their config. */
function syncing(workspaces: readonly WorkspaceEngine[]): { ws: WorkspaceEngine; cron: string }[] {
  return workspaces.flatMap((ws) => (ws.config.sync?.git ? [{ ws, cron: ws.config.sync.git }] : []));
}

/** Registers them before any request is served, so every file cortexd writes there is noted for the next commit. */
export function registerGitSync(git: GitSync, workspaces: readonly WorkspaceEngine[]): void {
  for (const { ws, cron } of syncing(workspaces)) git.register(ws, cron);
}

/** One scheduled job per such workspace. */
export function scheduleGitSync(git: GitSync, workspaces: readonly WorkspaceEngine[], scheduler: Scheduler): void {
  for (const { ws, cron } of syncing(workspaces))
    scheduler.add({ name: `git-sync:${ws.name}`, cron, run: () => git.run(ws) });
}
