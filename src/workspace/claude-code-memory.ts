import { readdirSync, statSync } from "node:fs";
import { readRegularTextSync } from "../util/regular-file.js";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { parseJsonc } from "../config/jsonc.js";
import { workspaceForCwd, type CwdCandidate } from "./by-cwd.js";

/**
 * Claude Code's own memory, as the installed CLI (2.1.328) lays it out — read from its binary and
 * checked against the real CLI in test/claude-code-real.test.ts:
 *
 * - the config dir: `$CLAUDE_CONFIG_DIR`, else `~/.claude`;
 * - auto memory, per project: `<config>/projects/<key>/memory/` (a `MEMORY.md` index and topic files
 *   with frontmatter; team memory is its `team/` subfolder), where `<key>` is the project's git root
 *   (else its directory) with every character other than a letter or digit replaced by `-`.
 *   `autoMemoryDirectory` (user or local settings; the CLI ignores it in the checked-in
 *   `.claude/settings.json`) moves it, `~/` expanded; `autoMemoryEnabled: false` (user, project or
 *   local settings, the later winning) or `CLAUDE_CODE_DISABLE_AUTO_MEMORY` turns it off;
 * - agent memory: `<config>/agent-memory/<agent>/`, `<project>/.claude/agent-memory/<agent>/` and
 *   `<project>/.claude/agent-memory-local/<agent>/`;
 * - the CLAUDE.md family: `<config>/CLAUDE.md`; `CLAUDE.md`, `CLAUDE.local.md` and `.claude/CLAUDE.md`
 *   in the project directory and each directory above it; nested `CLAUDE.md` files below it (a
 *   bounded search: 3 levels, 500 directories a project, 5,000 in all).
 *
 * A project's directory is known from its transcripts (each line carries the session's `cwd`) or
 * from a workspace's configured `projects`. Nothing here writes: these files are Claude Code's.
 */

export type ClaudeMemoryKind = "auto-memory" | "agent-memory" | "claude-md";

export interface ClaudeMemorySource {
  /** A directory (auto and agent memory) or a file (CLAUDE.md). */
  path: string;
  kind: ClaudeMemoryKind;
  /** The project directory it belongs to; absent for the user's own (config dir) memory. */
  project?: string;
  /** Markdown files in it (1 for a CLAUDE.md). */
  files: number;
}

export interface ClaudeMemoryFound {
  configDir: string;
  /** Project directories found (from transcripts and the given projects). */
  projects: string[];
  sources: ClaudeMemorySource[];
}

/** The file names of the CLAUDE.md family Claude Code loads from a directory. */
export const CLAUDE_MD_NAMES = ["CLAUDE.md", "CLAUDE.local.md", join(".claude", "CLAUDE.md")] as const;

/** Claude Code's config dir: `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeConfigDir(env: NodeJS.ProcessEnv): string {
  const dir = env.CLAUDE_CONFIG_DIR?.trim();
  return dir && isAbsolute(dir) ? dir : join(env.HOME || homedir(), ".claude");
}

/** The CLI's project key: every character other than an ASCII letter or digit becomes `-`. */
export function claudeProjectKey(dir: string): string {
  return dir.replace(/[^a-zA-Z0-9]/g, "-");
}

type Settings = { autoMemoryEnabled?: unknown; autoMemoryDirectory?: unknown };

function readSettings(file: string): Settings {
  try {
    const v = parseJsonc(readRegularTextSync(file, { maxBytes: 1024 * 1024 }));
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Settings) : {};
  } catch {
    return {}; // missing or unreadable: as the CLI, a settings file it cannot read sets nothing
  }
}

const isDir = (p: string) => {
  try {
    return statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
};
const isFile = (p: string) => {
  try {
    return statSync(p, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
};

/** `autoMemoryDirectory` as the CLI resolves it: `~/` from the home, absolute, not a root. */
function memoryDirSetting(value: unknown, home: string): string | undefined {
  if (typeof value !== "string" || value.includes("\0")) return undefined;
  let dir = value;
  if (dir.startsWith("~/")) dir = join(home, dir.slice(2));
  if (!isAbsolute(dir)) return undefined;
  dir = resolve(dir);
  return dir.length < 3 ? undefined : dir;
}

const FALSY = new Set(["1", "true", "yes", "on"]);

/** The auto-memory folder of a project (undefined when auto memory is off for it). */
export function autoMemoryDir(
  project: string | undefined,
  opts: { configDir: string; home: string; env: NodeJS.ProcessEnv; key?: string },
): string | undefined {
  if (FALSY.has((opts.env.CLAUDE_CODE_DISABLE_AUTO_MEMORY ?? "").toLowerCase())) return undefined;
  const user = readSettings(join(opts.configDir, "settings.json"));
  const shared = project ? readSettings(join(project, ".claude", "settings.json")) : {};
  const local = project ? readSettings(join(project, ".claude", "settings.local.json")) : {};
  const enabled = [local, shared, user].map((s) => s.autoMemoryEnabled).find((v) => typeof v === "boolean");
  if (enabled === false) return undefined;
  const custom =
    memoryDirSetting(local.autoMemoryDirectory, opts.home) ?? memoryDirSetting(user.autoMemoryDirectory, opts.home);
  if (custom) return custom;
  const key = opts.key ?? (project ? claudeProjectKey(gitRoot(project) ?? project) : undefined);
  return key ? join(opts.configDir, "projects", key, "memory") : undefined;
}

/** The nearest directory at or above `dir` holding `.git`, as the CLI keys auto memory by it. */
function gitRoot(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    try {
      if (statSync(join(d, ".git"), { throwIfNoEntry: false })) return d;
    } catch {
      // unreadable: go on up
    }
    if (dirname(d) === d) return undefined;
  }
}

/** The `cwd` of the first transcript line that has one (read from the file's first 64 KB). */
function transcriptCwd(file: string): string | undefined {
  try {
    const head = readRegularTextSync(file, { maxBytes: 65_536, headOnly: true });
    for (const line of head.split("\n")) {
      if (!line.includes('"cwd"')) continue;
      try {
        const cwd = (JSON.parse(line) as { cwd?: unknown }).cwd;
        if (typeof cwd === "string" && isAbsolute(cwd)) return resolve(cwd);
      } catch {
        // a cut-off or malformed line
      }
    }
  } catch {
    // unreadable, or not a regular file (a FIFO is never waited on)
  }
  return undefined;
}

function listDir(dir: string): import("node:fs").Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** Markdown files under a directory (dot-dirs and node_modules skipped), up to `cap`. */
export function countMarkdown(dir: string, cap = 100_000): number {
  let n = 0;
  const stack = [dir];
  while (stack.length && n < cap) {
    const d = stack.pop()!;
    for (const e of listDir(d)) {
      if (e.name.startsWith(".") || e.name === "node_modules") continue;
      if (e.isDirectory()) stack.push(join(d, e.name));
      else if (e.isFile() && e.name.toLowerCase().endsWith(".md")) n++;
    }
  }
  return n;
}

/** Directories a search for nested CLAUDE.md files looks into: per project, and in all. */
const NESTED_DEPTH = 3;
const NESTED_DIRS_PER_PROJECT = 500;
const NESTED_DIRS_TOTAL = 5000;

/** Nested CLAUDE.md files below a project directory: a bounded walk (depth 3, 500 directories, from a shared budget). */
function nestedClaudeMd(project: string, budget: { dirs: number }): string[] {
  const out: string[] = [];
  let own = NESTED_DIRS_PER_PROJECT;
  const walk = (dir: string, depth: number): void => {
    for (const e of listDir(dir)) {
      if (!e.isDirectory() || e.name.startsWith(".") || e.name === "node_modules") continue;
      if (own-- <= 0 || budget.dirs-- <= 0) return;
      const sub = join(dir, e.name);
      if (isFile(join(sub, "CLAUDE.md"))) out.push(join(sub, "CLAUDE.md"));
      if (depth < NESTED_DEPTH) walk(sub, depth + 1);
    }
  };
  walk(project, 1);
  return out.sort();
}

/** The project directories Claude Code has sessions for: each project folder's transcripts' `cwd`. */
function transcriptProjects(configDir: string): { key: string; cwd?: string }[] {
  const out: { key: string; cwd?: string }[] = [];
  for (const e of listDir(join(configDir, "projects"))) {
    if (!e.isDirectory() || e.name.startsWith(".")) continue;
    const dir = join(configDir, "projects", e.name);
    const jsonl = listDir(dir)
      .filter((f) => f.isFile() && f.name.endsWith(".jsonl"))
      .map((f) => join(dir, f.name));
    let cwd: string | undefined;
    for (const f of jsonl.slice(0, 5)) if ((cwd = transcriptCwd(f))) break;
    out.push({ key: e.name, ...(cwd ? { cwd } : {}) });
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : 1));
}

/**
 * Finds Claude Code's memory on this machine: every project's auto-memory and agent-memory folders
 * and CLAUDE.md files, and the user's own. `projects` adds project directories known otherwise
 * (a workspace's configured `projects`). Only what exists is listed.
 */
export function findClaudeMemory(
  opts: { env?: NodeJS.ProcessEnv; projects?: readonly string[] } = {},
): ClaudeMemoryFound {
  const env = opts.env ?? process.env;
  const home = env.HOME || homedir();
  const configDir = claudeConfigDir(env);
  const sources: ClaudeMemorySource[] = [];
  const seen = new Set<string>();
  const add = (s: Omit<ClaudeMemorySource, "files">): void => {
    if (seen.has(s.path)) return;
    const dir = s.kind !== "claude-md";
    if (dir ? !isDir(s.path) : !isFile(s.path)) return;
    seen.add(s.path);
    sources.push({ ...s, files: dir ? countMarkdown(s.path) : 1 });
  };
  const known = transcriptProjects(configDir);
  const nestedBudget = { dirs: NESTED_DIRS_TOTAL };
  const projects = [...new Set([...known.flatMap((k) => (k.cwd ? [k.cwd] : [])), ...(opts.projects ?? [])])].sort();
  const ancestors = new Map<string, string>(); // key → directory, for memory folders keyed by a git root above a cwd
  for (const p of projects) for (let d = p; dirname(d) !== d; d = dirname(d)) ancestors.set(claudeProjectKey(d), d);

  add({ path: join(configDir, "CLAUDE.md"), kind: "claude-md" });
  for (const e of listDir(join(configDir, "agent-memory")))
    if (e.isDirectory()) add({ path: join(configDir, "agent-memory", e.name), kind: "agent-memory" });
  // Auto memory in the default place, one folder per project key (also keys with no transcripts).
  for (const { key } of known) {
    const project = ancestors.get(key);
    const dir = autoMemoryDir(project, { configDir, home, env, key });
    if (dir) add({ path: dir, kind: "auto-memory", ...(project ? { project } : {}) });
  }
  for (const project of projects) {
    const dir = autoMemoryDir(project, { configDir, home, env });
    if (dir) add({ path: dir, kind: "auto-memory", project });
    for (const sub of ["agent-memory", "agent-memory-local"]) {
      const base = join(project, ".claude", sub);
      for (const e of listDir(base))
        if (e.isDirectory()) add({ path: join(base, e.name), kind: "agent-memory", project });
    }
    for (let d = project; ; d = dirname(d)) {
      for (const name of CLAUDE_MD_NAMES) add({ path: join(d, name), kind: "claude-md", project });
      if (dirname(d) === d || d === home) break;
    }
    for (const f of nestedClaudeMd(project, nestedBudget)) add({ path: f, kind: "claude-md", project });
  }
  return { configDir, projects, sources };
}

/** Where the default auto-memory folders live: `<config>/projects` (one `<key>/memory/` each). */
export function claudeProjectsDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(claudeConfigDir(env), "projects");
}

/**
 * A filter for files under `<config>/projects`: true for a markdown file of a project's default
 * auto-memory folder (`<key>/memory/**`) when auto memory is on for that project and `mine` says
 * its project (undefined when unknown) belongs here. The tree is watched as a whole, so a project
 * that appears while the daemon runs is indexed without a restart. A key's project is looked up
 * from the transcripts again when it was not known (at most once a second per key).
 */
export function autoMemoryFilter(
  mine: (project: string | undefined) => boolean,
  env: NodeJS.ProcessEnv = process.env,
): (absPath: string) => boolean {
  const home = env.HOME || homedir();
  const configDir = claudeConfigDir(env);
  const base = join(configDir, "projects") + "/";
  const decided = new Map<string, { ok: boolean; known: boolean; at: number }>();
  // key → project, from one read of every project folder's transcripts, read again on a miss
  // (a new project) at most once a second: a scan of many projects reads them once, not per key.
  let byKey = new Map<string, string>();
  let readAt = -Infinity;
  const projectOf = (key: string): string | undefined => {
    if (!byKey.has(key) && Date.now() - readAt >= 1000) {
      readAt = Date.now();
      byKey = new Map();
      for (const k of transcriptProjects(configDir))
        for (let d = k.cwd; d && dirname(d) !== d; d = dirname(d))
          if (!byKey.has(claudeProjectKey(d))) byKey.set(claudeProjectKey(d), d);
    }
    return byKey.get(key);
  };
  return (absPath) => {
    if (!absPath.startsWith(base)) return false;
    const parts = absPath.slice(base.length).split("/");
    if (parts.length < 3 || parts[1] !== "memory" || !parts.at(-1)!.toLowerCase().endsWith(".md")) return false;
    const key = parts[0]!;
    const had = decided.get(key);
    if (had && (had.known || Date.now() - had.at < 1000)) return had.ok;
    const project = projectOf(key);
    const dir = autoMemoryDir(project, { configDir, home, env, key });
    const ok = dir === join(configDir, "projects", key, "memory") && mine(project);
    decided.set(key, { ok, known: project !== undefined, at: Date.now() });
    return ok;
  };
}

/**
 * Which workspace each source belongs to: the workspace whose root or `projects` contains the
 * source's project (as the hooks' cwd selection picks one), else the first of them; the user's own
 * memory (no project) goes to the first. Returns one list of paths per workspace, in order.
 */
export function assignClaudeMemory<T extends CwdCandidate>(
  found: ClaudeMemoryFound,
  workspaces: readonly T[],
): string[][] {
  const out = workspaces.map((): string[] => []);
  if (!workspaces.length) return out;
  for (const s of found.sources) {
    const ws = s.project ? workspaceForCwd(workspaces, s.project) : undefined;
    out[ws ? workspaces.indexOf(ws) : 0]!.push(s.path);
  }
  return out;
}

/** "3 projects, 41 auto-memory files, 5 CLAUDE.md" (and agent memory when there is any). */
export function describeClaudeMemory(found: ClaudeMemoryFound): string {
  const sum = (k: ClaudeMemoryKind) => found.sources.filter((s) => s.kind === k).reduce((n, s) => n + s.files, 0);
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? "" : "s"}`;
  const agent = sum("agent-memory");
  return [
    plural(found.projects.length, "project"),
    plural(sum("auto-memory"), "auto-memory file"),
    `${sum("claude-md")} CLAUDE.md`,
    ...(agent ? [plural(agent, "agent-memory file")] : []),
  ].join(", ");
}
