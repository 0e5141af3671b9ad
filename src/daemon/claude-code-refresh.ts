import { readdirSync } from "node:fs";
import { sep } from "node:path";
import { rediscoverClaudeMemory, type Engine, type WorkspaceEngine } from "../engine/engine.js";

/**
 * Claude Code projects that appear while the daemon runs: a transcript in a project folder of
 * `<config>/projects` not seen before makes the daemon find Claude Code's memory again (the new
 * project's CLAUDE.md files, agent memory, a moved auto-memory folder), watch what is new and index
 * it. The default auto-memory folders need none of this: that tree is watched as a whole.
 */
export class ClaudeMemoryRefresh {
  private readonly known = new Map<string, Set<string>>();
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly engine: Engine,
    private readonly onAdded: (ws: WorkspaceEngine, paths: string[]) => Promise<void>,
  ) {
    for (const ws of engine.workspaces) {
      const dir = ws.target.claudeProjects?.dir;
      if (dir && !this.known.has(dir)) this.known.set(dir, new Set(listKeys(dir)));
    }
  }

  /** Looks at changed paths (cheap); finds the memory again, once at a time, when a project is new. */
  onChanges(paths: readonly string[]): void {
    let fresh = false;
    for (const p of paths) {
      if (!p.endsWith(".jsonl")) continue;
      for (const [dir, keys] of this.known) {
        if (!p.startsWith(dir + sep)) continue;
        const key = p.slice(dir.length + 1).split(sep)[0]!;
        if (!keys.has(key)) {
          keys.add(key);
          fresh = true;
        }
      }
    }
    if (!fresh) return;
    this.running = this.running.then(async () => {
      for (const [name, added] of rediscoverClaudeMemory(this.engine))
        await this.onAdded(this.engine.workspace(name), added);
    });
  }

  /** Resolves when the refreshes asked for so far are done. */
  idle(): Promise<void> {
    return this.running;
  }
}

function listKeys(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch {
    return [];
  }
}
