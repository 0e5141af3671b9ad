import { join } from "node:path";
import { defuseTags, visibilityTag } from "../visibility/line-tags.js";
import type { Visibility } from "../visibility/visibility.js";
import { MEMORY_FILE } from "../workspace/layout.js";

/** Where a save goes: today's daily log, or the curated MEMORY.md. */
export type SaveTarget = "daily" | "memory";

/** Local calendar date YYYY-MM-DD (daily logs follow the user's clock, not UTC). */
export function localDate(ms: number = Date.now()): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Local HH:MM. */
export function localTime(ms: number = Date.now()): string {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/**
 * Index key (relative to the workspace root) of a daily log or MEMORY.md. With `device` (per-device
 * daily logs, for file sync without merge) the day's log is `memory/YYYY-MM-DD.<device>.md`: still
 * that day's daily log (see workspace/classify.ts), but no other device writes it.
 */
export function targetKey(target: SaveTarget, date: string, device?: string): string {
  if (target === "memory") return MEMORY_FILE;
  return device ? `memory/${date}.${device}.md` : `memory/${date}.md`;
}

export function targetPath(root: string, target: SaveTarget, date: string, device?: string): string {
  return join(root, targetKey(target, date, device));
}

/** The first lines of a new file (a heading for a daily log, nothing for MEMORY.md). */
export function fileHeader(target: SaveTarget, date: string): string {
  return target === "daily" ? `# ${date}\n\n` : "";
}

/** Tag text as it is written: "#deploy", "#team-infra" (spaces → "-", "#" prefix stripped). */
export function normalizeTag(tag: string): string {
  return tag
    .trim()
    .replace(/^#+/, "")
    .replace(/\s+/g, "-")
    .replace(/[^\p{L}\p{N}_\-/.]/gu, "")
    .slice(0, 64);
}

export interface EntryOptions {
  importance?: number;
  tags?: readonly string[];
  /** Who may see the entry: its tag ends the last line (visibility/line-tags.ts); none: open. */
  visibility?: Visibility;
}

/**
 * A markdown bullet for a memory: "- text #tag <!-- importance: N --> <!-- visibility: private -->". Continuation lines are
 * indented so a multi-line memory stays one list item; blank lines inside it are dropped (they
 * would end the item). Returns the lines (no trailing newline).
 */
export function formatEntry(text: string, opts: EntryOptions = {}): string[] {
  // A visibility tag inside the text is inert: only the one cortexd appends counts.
  const body = defuseTags(text)
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== "");
  if (body.length === 0) body.push("(empty)");
  const first = body[0]!.replace(/^\s*(?:[-*+]\s+)?/, ""); // the bullet is ours
  const lines = [`- ${first}`, ...body.slice(1).map((l) => `  ${l.trim()}`)];
  const tags = [...new Set((opts.tags ?? []).map(normalizeTag).filter((t) => t !== ""))];
  let suffix = tags.map((t) => `#${t}`).join(" ");
  if (opts.importance !== undefined) suffix += `${suffix ? " " : ""}<!-- importance: ${opts.importance} -->`;
  const tag = opts.visibility ? visibilityTag(opts.visibility) : "";
  if (tag) suffix += `${suffix ? " " : ""}${tag}`;
  if (suffix) lines[lines.length - 1] += ` ${suffix}`;
  return lines;
}
