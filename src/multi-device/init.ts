import { existsSync, statSync, writeFileSync } from "node:fs";
import { readRegularTextSync } from "../util/regular-file.js";
import { dirname, join, resolve } from "node:path";

/**
 * `cortexd sync init`: conflict-free memory with git. Daily logs and captured transcripts are
 * append-only, so two devices appending to the same day's log is never a real conflict: git's
 * built-in union merge keeps both sides' lines. Curated files (MEMORY.md, USER.md) and other notes
 * are left to git's normal merge (an edit on both sides there needs a person). The rules live in a
 * delimited block of the workspace's .gitattributes, so the user's own lines are kept and a second
 * run changes nothing.
 */
export const BLOCK_START =
  "# cortexd: append-only memory files merge by union (both sides' lines kept); MEMORY.md and USER.md merge normally";
export const BLOCK_END = "# cortexd: end";
export const UNION_RULES = [
  "memory/**/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*.md merge=union",
  "sessions/**/*.jsonl merge=union",
] as const;

export interface SyncInitResult {
  root: string;
  /** The workspace is in a git work tree (only then is .gitattributes written). */
  git: boolean;
  /** The .gitattributes path (written or not). */
  gitattributes: string;
  /** The file was created or its cortexd block added or updated. */
  changed: boolean;
  created: boolean;
  rules: string[];
  /** What it did, or why it did nothing, in one line. */
  summary: string;
  /** What the user should do next. */
  next: string[];
}

/** The nearest enclosing git work tree (a `.git` dir or file), or null. */
export function gitWorkTree(root: string): string | null {
  for (let dir = resolve(root); ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return null;
  }
}

function block(): string {
  return [BLOCK_START, ...UNION_RULES, BLOCK_END].join("\n");
}

/** Writes or updates the cortexd block in `<root>/.gitattributes` (a git-backed workspace only). */
export function syncInit(root: string): SyncInitResult {
  const abs = resolve(root);
  if (!statSync(abs, { throwIfNoEntry: false })?.isDirectory())
    throw new Error(`workspace ${abs} does not exist or is not a directory`);
  const file = join(abs, ".gitattributes");
  const base = { root: abs, gitattributes: file, rules: [...UNION_RULES] };
  if (!gitWorkTree(abs)) {
    return {
      ...base,
      git: false,
      changed: false,
      created: false,
      summary: `${abs} is not in a git repository: nothing written`,
      next: [
        `with git: git -C ${abs} init (or clone your memory repository there), then run this again`,
        `with a file-sync tool without merge (Syncthing, Dropbox, iCloud): set "sync": { "perDeviceLog": true } on this workspace in the config`,
      ],
    };
  }
  const existed = existsSync(file);
  const before = existed ? readRegularTextSync(file, { maxBytes: 1024 * 1024 }) : "";
  const want = block();
  const start = before.indexOf(BLOCK_START);
  const end = start >= 0 ? before.indexOf(BLOCK_END, start) : -1;
  let after: string;
  if (start >= 0 && end >= 0) after = before.slice(0, start) + want + before.slice(end + BLOCK_END.length);
  else after = before + (before && !before.endsWith("\n") ? "\n" : "") + (before.trim() ? "\n" : "") + want + "\n";
  const changed = after !== before;
  if (changed) writeFileSync(file, after);
  const commit = `git -C ${abs} add .gitattributes && git -C ${abs} commit -m "cortexd: union merge for daily logs and transcripts" && git -C ${abs} push`;
  return {
    ...base,
    git: true,
    changed,
    created: !existed,
    summary: changed
      ? `${existed ? "updated" : "created"} ${file}: daily logs and transcripts merge by union; MEMORY.md and USER.md merge normally`
      : `${file} already has cortexd's merge rules: nothing to do`,
    next: changed ? [`commit it so every clone merges the same way: ${commit}`] : [],
  };
}
