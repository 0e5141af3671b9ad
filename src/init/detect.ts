import { existsSync, readdirSync, statSync } from "node:fs";
import { readRegularTextSync } from "../util/regular-file.js";
import { homedir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../config/load.js";
import { defaultConfigPath } from "../config/paths.js";
import { errorMessage } from "../util/error-message.js";
import { looksLikeWorkspace } from "../workspace/resolve.js";
import { describeClaudeMemory, findClaudeMemory, type ClaudeMemoryKind } from "../workspace/claude-code-memory.js";

/** What `cortexd init` finds on this machine before proposing anything. */
export interface Detected {
  home: string;
  /** The config file (whether or not it exists), and its workspaces when it does. */
  config: { file: string; exists: boolean; workspaces: { path: string; exists: boolean }[]; error?: string };
  /** ~/.openclaw/workspace, when it is a directory; its agents' session dirs (~/.openclaw/agents/<id>/sessions). */
  openclaw: { workspace: string | null; sessionDirs: string[] };
  /** ~/.claude/projects, when it holds transcripts (*.jsonl): how many projects and transcripts. */
  claudeCode: {
    present: boolean;
    projectsDir: string | null;
    projects: number;
    transcripts: number;
    settings: string;
    hooksInstalled: boolean;
    /** Claude Code's own memory (auto memory, agent memory, CLAUDE.md files): what was found. */
    memory: {
      summary: string;
      projects: number;
      files: Record<ClaudeMemoryKind, number>;
      paths: string[];
    };
  };
}

const isDir = (p: string) => statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;

function listDirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith("."))
      .map((e) => join(dir, e.name))
      .sort();
  } catch {
    return [];
  }
}

function countJsonl(dir: string): number {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith(".jsonl")).length;
  } catch {
    return 0;
  }
}

function hasCortexdHooks(settings: string): boolean {
  try {
    return /\bcortexd\b['"]?\s+hook\s|cortexd-hook\b/.test(readRegularTextSync(settings, { maxBytes: 1024 * 1024 }));
  } catch {
    return false;
  }
}

export function detect(opts: { env?: NodeJS.ProcessEnv; configFile?: string } = {}): Detected {
  const env = opts.env ?? process.env;
  const home = env.HOME || homedir();
  const file = opts.configFile ?? env.CORTEXD_CONFIG ?? defaultConfigPath(env);
  const config: Detected["config"] = { file, exists: existsSync(file), workspaces: [] };
  if (config.exists) {
    try {
      const loaded = loadConfig({ file, env: { ...env, CORTEXD_WORKSPACE: "" } });
      config.workspaces = loaded.config.workspaces.map((w) => ({ path: w.path, exists: isDir(w.path) }));
    } catch (e) {
      config.error = errorMessage(e);
    }
  }
  const ocWorkspace = join(home, ".openclaw", "workspace");
  const sessionDirs = listDirs(join(home, ".openclaw", "agents"))
    .map((a) => join(a, "sessions"))
    .filter(isDir);
  const projectsDir = join(home, ".claude", "projects");
  const projects = listDirs(projectsDir);
  const transcripts = projects.reduce((n, p) => n + countJsonl(p), 0);
  const settings = join(home, ".claude", "settings.json");
  const found = findClaudeMemory({ env: { ...env, HOME: home } });
  const files: Record<ClaudeMemoryKind, number> = { "auto-memory": 0, "agent-memory": 0, "claude-md": 0 };
  for (const s of found.sources) files[s.kind] += s.files;
  return {
    home,
    config,
    openclaw: { workspace: isDir(ocWorkspace) ? ocWorkspace : null, sessionDirs },
    claudeCode: {
      present: isDir(join(home, ".claude")),
      projectsDir: transcripts > 0 ? projectsDir : null,
      projects: projects.filter((p) => countJsonl(p) > 0).length,
      transcripts,
      settings,
      hooksInstalled: hasCortexdHooks(settings),
      memory: {
        summary: describeClaudeMemory(found),
        projects: found.projects.length,
        files,
        paths: found.sources.map((s) => s.path),
      },
    },
  };
}

/** Whether a directory already is a memory workspace (init leaves its files alone). */
export function isWorkspace(dir: string): boolean {
  return isDir(dir) && looksLikeWorkspace(dir);
}
