import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { autoMemoryDir, CLAUDE_MD_NAMES, claudeConfigDir } from "./claude-code-memory.js";

/**
 * What Claude Code puts into a session's conversation on its own, measured with the real CLI 2.1.328
 * and the stub model (test/claude-code-real.test.ts): the user's `<config>/CLAUDE.md`; `CLAUDE.md`,
 * `CLAUDE.local.md` and `.claude/CLAUDE.md` in the session's directory and every directory above it;
 * and the project's auto-memory index `MEMORY.md`. Nested CLAUDE.md files below the directory (read
 * when Claude works in them) and the auto-memory topic files are not in the request: recall keeps them.
 *
 * Recall for a Claude Code hook leaves these files out (the way the OpenClaw plugin leaves out
 * MEMORY.md); search and the MCP tools still find them.
 */
export function claudeCodeLoadedFiles(cwd: string, env: NodeJS.ProcessEnv = process.env): Set<string> {
  const out = new Set<string>();
  if (!isAbsolute(cwd)) return out;
  const home = env.HOME || homedir();
  const configDir = claudeConfigDir(env);
  const dir = resolve(cwd);
  out.add(join(configDir, "CLAUDE.md"));
  for (let d = dir; ; d = dirname(d)) {
    for (const name of CLAUDE_MD_NAMES) out.add(join(d, name));
    if (dirname(d) === d) break;
  }
  const auto = autoMemoryDir(dir, { configDir, home, env });
  if (auto) out.add(join(auto, "MEMORY.md"));
  // The index keys files by the path found; the hook's cwd may be the real path of it, or not.
  for (const p of [...out]) {
    try {
      out.add(realpathSync(p));
    } catch {
      // not there: nothing to leave out under another name
    }
  }
  return out;
}

/** A predicate for recall: true for a hit's path Claude Code already loaded for a session in `cwd`. */
export function loadedByClaudeCode(cwd: string, env?: NodeJS.ProcessEnv): (path: string) => boolean {
  const loaded = claudeCodeLoadedFiles(cwd, env);
  return (path) => loaded.has(path);
}
