import type { FileClass } from "../ingest/types.js";
import { MEMORY_DIRS, isCuratedFile, isMemoryDir } from "./layout.js";

export interface Classification {
  class: FileClass;
  /** YYYY-MM-DD for dated daily logs. */
  date?: string;
}

const DATED = /^(\d{4})-(\d{2})-(\d{2})(?:[^0-9].*)?\.md$/i;

/**
 * Returns the date in a daily-log file name, if valid: `2026-11-28.md`, `2026-11-28-standup.md`, and
 * so also a per-device log (`2026-11-28.laptop.md`), a save sidecar (`2026-11-28.saved-during-conflict.md`)
 * and a file-sync conflict copy (`2026-11-28.sync-conflict-….md`, `2026-11-28 (conflicted copy …).md`):
 * all daily logs of that date (see src/multi-device/). Anything after the date that is not a digit is allowed.
 */
export function dateFromName(basename: string): string | undefined {
  const m = DATED.exec(basename);
  if (!m) return undefined;
  const [, y, mo, d] = m;
  const date = new Date(`${y}-${mo}-${d}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.getUTCDate() !== Number(d)) return undefined;
  return `${y}-${mo}-${d}`;
}

/** A markdown note outside the curated files: daily when its name is dated. */
export function classifyNote(basename: string): Classification {
  const date = dateFromName(basename);
  return date ? { class: "daily", date } : { class: "note" };
}

/**
 * Classifies a path relative to a workspace root (POSIX separators).
 * Returns null for files the workspace does not index.
 */
export function classifyWorkspacePath(rel: string): Classification | null {
  const parts = rel.split("/");
  const base = parts[parts.length - 1]!;
  if (parts.length === 1) return isCuratedFile(base) ? { class: "curated" } : null;
  const dir = parts[0]!;
  if (!isMemoryDir(dir)) return null;
  const lower = base.toLowerCase();
  // sessions/ also holds markdown transcripts: OpenClaw's session memory (sessions/YYYY-MM-DD-<slug>.md).
  if (dir === "sessions" && lower.endsWith(".md")) return { class: "transcript" };
  if (!lower.endsWith(MEMORY_DIRS[dir])) return null;
  return dir === "memory" ? classifyNote(base) : { class: "transcript" };
}

/** A JSONL transcript (read and chunked by record, appends incrementally); a markdown one is chunked as markdown. */
export function isJsonlTranscript(file: { class: FileClass; path: string }): boolean {
  return file.class === "transcript" && !file.path.toLowerCase().endsWith(".md");
}

/** Classifies a file found under a configured extra path or transcript dir. */
export function classifyExtraPath(absPath: string, transcriptsOnly: boolean): Classification | null {
  const base = absPath.slice(absPath.lastIndexOf("/") + 1);
  const lower = base.toLowerCase();
  if (lower.endsWith(".jsonl")) return { class: "transcript" };
  if (transcriptsOnly) return null;
  if (lower.endsWith(".md")) return classifyNote(base);
  return null;
}

/** Claude Code's index and instruction files: curated (chunked per entry, private). */
const CLAUDE_CURATED = new Set(["memory.md", "claude.md", "claude.local.md"]);

/** Classifies a markdown file of Claude Code's memory (workspace/claude-code-memory): topic files are notes. */
export function classifyClaudeMemoryPath(absPath: string): Classification | null {
  const lower = absPath.slice(absPath.lastIndexOf("/") + 1).toLowerCase();
  if (!lower.endsWith(".md")) return null;
  return CLAUDE_CURATED.has(lower) ? { class: "curated" } : { class: "note" };
}
