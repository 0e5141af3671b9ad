import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { editConfigFile } from "../config/edit.js";
import { parseConfigText } from "../config/load.js";
import { readConfigTextIfExists } from "../config/read-config.js";
import { expandPath } from "../config/paths.js";
import { normaliseRoot } from "../workspace/root-path.js";
import { MEMORY_FILE, memoryFilePath } from "../workspace/layout.js";
import type { Detected } from "./detect.js";

/**
 * `cortexd init`'s changes to the workspace and the config: the memory workspace is created where
 * none exists (MEMORY.md and memory/, nothing else touched), and the config gets that workspace
 * with its transcript dirs. Running it again with the same choices changes nothing.
 */

export interface InitChoices {
  /** Absolute root of the memory workspace. */
  workspace: string;
  /** Absolute transcript directories to index with it. */
  transcriptDirs: string[];
  /** Index Claude Code's own memory with it (`claudeCodeMemory`): when Claude Code is there. */
  claudeCodeMemory?: boolean;
}

export interface SetupOutcome {
  workspace: string;
  /** What was created in the workspace (relative paths; empty when it was already a workspace). */
  created: string[];
  transcriptDirs: string[];
  claudeCodeMemory: boolean;
  configFile: string;
  configChanged: boolean;
}

/** Where init proposes the memory workspace when nothing is there: beside OpenClaw's, in the home. */
export function defaultNewWorkspace(home: string): string {
  return join(home, ".cortexd", "workspace");
}

/** The proposal from what was found: --workspace, else an existing configured one, else OpenClaw's, else a new one. */
export function propose(
  d: Detected,
  opts: { workspace?: string; transcripts: boolean; claudeMemory?: boolean },
): InitChoices {
  const workspace =
    opts.workspace ??
    d.config.workspaces.find((w) => w.exists)?.path ??
    d.openclaw.workspace ??
    defaultNewWorkspace(d.home);
  const transcriptDirs: string[] = [];
  if (opts.transcripts) {
    if (d.openclaw.workspace && workspace === d.openclaw.workspace) transcriptDirs.push(...d.openclaw.sessionDirs);
    if (d.claudeCode.projectsDir) transcriptDirs.push(d.claudeCode.projectsDir);
  }
  const claudeCodeMemory =
    opts.claudeMemory !== false && (d.claudeCode.present || d.claudeCode.memory.paths.length > 0);
  return { workspace, transcriptDirs, ...(claudeCodeMemory ? { claudeCodeMemory } : {}) };
}

/**
 * The new MEMORY.md: a heading and a note in an HTML comment (recall injects neither: a memory of
 * headings and comments only is no memory, search/recall.ts).
 */
const MEMORY_MD = `# Memory

<!-- Long-term facts, decisions and preferences for your agents, one "- " bullet each. cortexd indexes
this file, USER.md, memory/*.md and the transcripts. \`cortexd save "…"\` appends to today's daily log
(memory/YYYY-MM-DD.md); \`cortexd save --target memory "…"\` appends here. -->
`;

/** Creates MEMORY.md and memory/ where they are missing; returns what it created. */
export function ensureWorkspace(root: string): string[] {
  const created: string[] = [];
  if (!existsSync(join(root, "memory"))) {
    mkdirSync(join(root, "memory"), { recursive: true });
    created.push("memory/");
  }
  const memory = memoryFilePath(root);
  if (!existsSync(memory)) {
    writeFileSync(memory, MEMORY_MD, { flag: "wx" });
    created.push(MEMORY_FILE);
  }
  return created;
}

interface RawWorkspace {
  path?: unknown;
  transcriptDirs?: unknown;
  claudeCodeMemory?: unknown;
  [key: string]: unknown;
}

/** The config's workspaces with the chosen one in it (first when new; its transcript dirs merged). */
export function mergeWorkspaces(
  raw: readonly RawWorkspace[],
  choices: InitChoices,
  env: NodeJS.ProcessEnv,
): RawWorkspace[] {
  const out = raw.map((w) => ({ ...w }));
  const home = env.HOME || homedir();
  const root = normaliseRoot(choices.workspace, process.cwd(), home);
  const at = out.findIndex((w) => typeof w.path === "string" && normaliseRoot(w.path, process.cwd(), home) === root);
  if (at < 0) {
    return [
      {
        path: choices.workspace,
        ...(choices.transcriptDirs.length ? { transcriptDirs: choices.transcriptDirs } : {}),
        ...(choices.claudeCodeMemory ? { claudeCodeMemory: true } : {}),
      },
      ...out,
    ];
  }
  const entry = out[at]!;
  // Turned on when chosen; a workspace that says false (the user's choice) is left alone.
  if (choices.claudeCodeMemory && entry.claudeCodeMemory === undefined) entry.claudeCodeMemory = true;
  const have = Array.isArray(entry.transcriptDirs)
    ? entry.transcriptDirs.filter((d): d is string => typeof d === "string")
    : [];
  const haveAbs = new Set(have.map((d) => expandPath(d, env)));
  const add = choices.transcriptDirs.filter((d) => !haveAbs.has(d));
  if (add.length) entry.transcriptDirs = [...have, ...add];
  return out;
}

/** Applies the choices: the workspace, then the config (written only when it changes). */
export function applySetup(d: Detected, choices: InitChoices, env: NodeJS.ProcessEnv = process.env): SetupOutcome {
  const created = ensureWorkspace(choices.workspace);
  const file = d.config.file;
  const text = readConfigTextIfExists(file);
  const raw = text !== null ? parseConfigText(text, file) : undefined;
  const rawWorkspaces =
    raw && typeof raw === "object" && Array.isArray((raw as { workspaces?: unknown }).workspaces)
      ? (raw as { workspaces: RawWorkspace[] }).workspaces
      : [];
  const next = mergeWorkspaces(rawWorkspaces, choices, env);
  const configChanged = !existsSync(file) || JSON.stringify(next) !== JSON.stringify(rawWorkspaces);
  if (configChanged) editConfigFile(file, [{ path: ["workspaces"], value: next }]);
  return {
    workspace: choices.workspace,
    created,
    transcriptDirs: choices.transcriptDirs,
    claudeCodeMemory: choices.claudeCodeMemory === true,
    configFile: file,
    configChanged,
  };
}
