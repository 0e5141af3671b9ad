import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";

/**
 * Which workspace an agent session belongs to, from the directory it runs in (a Claude Code hook
 * event's `cwd`): the workspace whose root or one of whose `projects` contains that directory; the
 * deepest such directory wins when several do (a project inside another workspace's root). Paths
 * are compared as given and with symlinks resolved. Undefined when none contains it.
 */
export interface CwdCandidate {
  root: string;
  projects: readonly string[];
}

export function workspaceForCwd<T extends CwdCandidate>(workspaces: readonly T[], cwd: string): T | undefined {
  if (!isAbsolute(cwd)) return undefined;
  const cwds = variants(cwd);
  let best: { ws: T; depth: number } | undefined;
  for (const ws of workspaces) {
    for (const dir of [ws.root, ...ws.projects]) {
      for (const d of variants(dir)) {
        if (!cwds.some((c) => contains(d, c))) continue;
        const depth = d.split("/").length;
        if (!best || depth > best.depth) best = { ws, depth };
      }
    }
  }
  return best?.ws;
}

function contains(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (rel !== ".." && !rel.startsWith("../") && !isAbsolute(rel));
}

/** The path itself and, when it differs, its real path (e.g. /tmp → /private/tmp on macOS). */
function variants(p: string): string[] {
  const abs = resolve(p);
  try {
    const real = realpathSync(abs);
    return real === abs ? [abs] : [abs, real];
  } catch {
    return [abs];
  }
}
