import { realpathSync } from "node:fs";
import type { FileClass } from "../ingest/types.js";
import { conflictCopyOf } from "../workspace/conflict-copies.js";
import { sessionVisibility, type Visibility } from "./visibility.js";

/**
 * The visibility a whole file gives its memories, before its entries' own tags (line-tags.ts) narrow it:
 * - curated files are private, and so is anything that is or resolves to one: a save sidecar
 *   (`memory/MEMORY.saved-during-conflict.md`), a file-sync conflict copy (`MEMORY 2.md`), a
 *   symlink to MEMORY.md or USER.md, a byte-for-byte copy of a curated file;
 * - a transcript is private unless it says it is a group's (a `sessionKey` of a group session in its
 *   records, or a session key as its file name): a DM's, the main session's, Claude Code's;
 * - anything else is open (its entries' tags decide).
 */

const CURATED_STEMS = new Set(["memory", "user"]);

/** `MEMORY.md`, `USER.md`, `memory/MEMORY.saved-during-conflict.md`, `USER 2.md`, `MEMORY (conflicted copy …).md`. */
export function namesCuratedFile(basename: string): boolean {
  const name = conflictCopyOf(basename) ?? basename;
  const stem = /^([^.\s(]+)/.exec(name)?.[1]?.toLowerCase();
  return stem !== undefined && CURATED_STEMS.has(stem) && /\.md$/i.test(name);
}

function basename(p: string): string {
  return p.slice(p.lastIndexOf("/") + 1);
}

/** A session key in a transcript's records (OpenClaw writes `sessionKey`), from its first 64 KB. */
const SESSION_KEY = /"session_?key"\s*:\s*"(agent:[^"\\]{1,400})"/i;

export interface FileFacts {
  path: string;
  absPath: string;
  class: FileClass;
  /** The file's first bytes as text (transcripts: where its session key is). */
  head?: string;
  /** Whether a curated file of the index has exactly this content. */
  copiesCurated?: () => boolean;
}

export function fileVisibility(f: FileFacts): Visibility {
  if (f.class === "curated") return "private";
  if (namesCuratedFile(basename(f.path))) return "private";
  let real = f.absPath;
  try {
    real = realpathSync(f.absPath);
  } catch {
    // vanished: the read reports it
  }
  if (real !== f.absPath && namesCuratedFile(basename(real))) return "private";
  if (f.class === "transcript") {
    const key = SESSION_KEY.exec(f.head ?? "")?.[1] ?? basename(f.path).replace(/\.jsonl$/i, "");
    return sessionVisibility(key);
  }
  if (f.copiesCurated?.()) return "private";
  return "open";
}
