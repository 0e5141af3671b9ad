/**
 * The workspace layout: which paths under a workspace root are memory. The one home of this fact;
 * classification (workspace/classify), the scan (workspace/scan), the watcher's filter
 * (daemon/watcher) and workspace detection (workspace/resolve) all read it from here.
 *
 *   MEMORY.md, USER.md (and a lowercase memory.md)   curated files, in the root only, and the
 *                                                    conflict copies a file-sync tool leaves of them
 *                                                    (`MEMORY 2.md`, `USER.sync-conflict-….md`)
 *   memory/**\/*.md                                   daily logs (dated names) and notes
 *   sessions/**\/*.jsonl                              transcripts
 *
 * Nothing else in the root is memory. Below the root, dot-files, dot-dirs and node_modules are skipped.
 */

import { join } from "node:path";
import { conflictCopyOf } from "./conflict-copies.js";

/** The curated memory file: its index key, and where cortexd writes it (saves with target "memory", promotions, init). */
export const MEMORY_FILE = "MEMORY.md";

/** MEMORY.md of a workspace root. */
export function memoryFilePath(root: string): string {
  return join(root, MEMORY_FILE);
}

/** Curated files: only in the workspace root. */
export const CURATED_FILES = [MEMORY_FILE, "USER.md", "memory.md"] as const;

/** The folders of the root that hold memory, and the file suffix (lowercased) each indexes. */
export const MEMORY_DIRS = { memory: ".md", sessions: ".jsonl" } as const;

export type MemoryDir = keyof typeof MEMORY_DIRS;

const curated = new Set<string>(CURATED_FILES);

/** A curated file of the root, or a file-sync tool's conflict copy of one (indexed as curated too). */
export function isCuratedFile(name: string): boolean {
  if (curated.has(name)) return true;
  const of = conflictCopyOf(name);
  return of !== undefined && curated.has(of);
}

export function isMemoryDir(name: string): name is MemoryDir {
  return Object.hasOwn(MEMORY_DIRS, name);
}

/** A root entry that can be or hold memory (a curated file or a copy of one, memory/, sessions/). */
export function isMemoryRootEntry(name: string): boolean {
  return isCuratedFile(name) || isMemoryDir(name);
}

/** The entries whose presence makes a directory a memory workspace. */
export const WORKSPACE_MARKERS: readonly string[] = [MEMORY_FILE, "USER.md", ...Object.keys(MEMORY_DIRS)];

/** A path segment the scan and the watcher skip: dot-files, dot-dirs and node_modules. */
export function isIgnoredSegment(segment: string): boolean {
  return segment.startsWith(".") || segment === "node_modules";
}
