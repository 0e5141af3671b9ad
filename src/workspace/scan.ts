import { lstatSync, readdirSync, realpathSync, statSync, type Dirent, type Stats } from "node:fs";
import { join, relative, sep } from "node:path";
import type { FileClass } from "../ingest/types.js";
import { classifyClaudeMemoryPath, classifyExtraPath, classifyWorkspacePath, type Classification } from "./classify.js";
import type { SkippedFile } from "./issues.js";
import { MEMORY_DIRS, isCuratedFile, isIgnoredSegment } from "./layout.js";
import { errorMessage } from "../util/error-message.js";

/** A memory file found on disk. */
export interface WorkspaceFile {
  /** Index key: path relative to the workspace root (POSIX), or absolute for files outside it. */
  path: string;
  absPath: string;
  class: FileClass;
  date?: string;
  size: number;
  mtimeMs: number;
}

export interface ScanTarget {
  root: string;
  transcriptDirs?: readonly string[];
  extraPaths?: readonly string[];
  /** Claude Code's memory folders and CLAUDE.md files (workspace/claude-code-memory): read, never written. */
  claudeMemory?: readonly string[];
  /** Claude Code's projects dir, whose `<key>/memory/` folders `accepts` says are this workspace's. */
  claudeProjects?: { dir: string; accepts: (absPath: string) => boolean };
}

export interface ScanResult {
  files: WorkspaceFile[];
  /** Things passed over with a reason (symlink out of root, unreadable dir, ...). */
  skipped: SkippedFile[];
}

// The scan uses sync fs calls: for thousands of small stats they are several times faster than the
// promise API, and a scan of a few thousand files blocks only briefly.
// Any failure (gone, ENAMETOOLONG, ELOOP, EACCES, a NUL in the path) means "not a usable file".
// A large tree yields to the event
// loop every YIELD_EVERY files, so a daemon scanning 100,000 files keeps answering searches.
const YIELD_EVERY = 1000;
function tryStat(p: string): Stats | null {
  try {
    return statSync(p, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}
export function tryLstat(p: string): Stats | null {
  try {
    return lstatSync(p, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}
function tryRealpath(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

function toPosix(p: string): string {
  return sep === "/" ? p : p.split(sep).join("/");
}

function isInside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith("/") ? root : root + "/");
}

interface WalkContext {
  /** Real path of the tree's root: symlinks may not lead outside it. */
  realRoot: string;
  visited: Set<string>;
  out: ScanResult;
  classify: (absPath: string) => Classification | null;
  keyOf: (absPath: string) => string;
  /** Shared across the walks of one scan: files since the last yield. */
  pace?: { sinceYield: number };
}

async function walk(dir: string, ctx: WalkContext): Promise<void> {
  const real = tryRealpath(dir);
  if (real === null) {
    ctx.out.skipped.push({ path: dir, kind: "vanished", reason: "directory vanished during the scan" });
    return;
  }
  if (ctx.visited.has(real)) return; // symlink loop or a directory reached twice
  ctx.visited.add(real);
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    ctx.out.skipped.push({
      path: dir,
      kind: "unreadable",
      reason: `directory unreadable: ${(e as NodeJS.ErrnoException).code ?? e}`,
    });
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const ent of entries) {
    if (isIgnoredSegment(ent.name)) continue;
    const abs = join(dir, ent.name);
    if (ent.isSymbolicLink()) {
      const target = tryRealpath(abs);
      if (target === null) {
        ctx.out.skipped.push({
          path: abs,
          kind: "broken-symlink",
          reason: "broken symlink (target missing, or a symlink loop)",
        });
        continue;
      }
      if (!isInside(ctx.realRoot, target)) {
        ctx.out.skipped.push({ path: abs, kind: "symlink-outside", reason: "symlink leads outside the workspace" });
        continue;
      }
      const st = tryStat(abs);
      if (st?.isDirectory()) await walk(abs, ctx);
      else if (st?.isFile()) addFile(abs, ctx);
      continue;
    }
    if (ent.isDirectory()) await walk(abs, ctx);
    else if (ent.isFile()) addFile(abs, ctx);
    if (ctx.pace && ++ctx.pace.sinceYield >= YIELD_EVERY) {
      ctx.pace.sinceYield = 0;
      await new Promise((r) => setImmediate(r));
    }
  }
}

function addFile(abs: string, ctx: WalkContext): void {
  const cls = ctx.classify(abs);
  if (!cls) return;
  const st = tryStat(abs);
  if (!st || !st.isFile()) return; // vanished mid-scan
  ctx.out.files.push({
    path: ctx.keyOf(abs),
    absPath: abs,
    class: cls.class,
    ...(cls.date ? { date: cls.date } : {}),
    size: st.size,
    mtimeMs: Math.floor(st.mtimeMs),
  });
}

/**
 * Lists every memory file of a workspace: MEMORY.md, USER.md, memory/**\/*.md, sessions/**\/*.jsonl,
 * plus configured transcript dirs and extra paths. Dot-dirs and node_modules are skipped; symlinks are
 * followed only while they stay inside the tree they were found in. Result is sorted by path.
 */
export async function scanWorkspace(target: ScanTarget): Promise<ScanResult> {
  const out: ScanResult = { files: [], skipped: [] };
  const root = target.root;
  const rootStat = tryStat(root);
  if (!rootStat?.isDirectory()) {
    throw new Error(
      `workspace root ${root} does not exist or is not a directory (create it, or fix "workspaces" in the config)`,
    );
  }
  const realRoot = realpathSync(root);
  const visited = new Set<string>();
  const keyOf = (abs: string) => {
    const rel = relative(root, abs);
    return rel.startsWith("..") || rel === "" ? abs : toPosix(rel);
  };
  // Root-level curated files, memory/ and sessions/ only: nothing else in the root is memory.
  /** An entry of the root that exists and, if a symlink, stays inside the root. */
  const usable = (abs: string): boolean => {
    const st = tryLstat(abs);
    if (!st) return false;
    if (st.isSymbolicLink()) {
      const t = tryRealpath(abs);
      if (!t || !isInside(realRoot, t)) {
        out.skipped.push({ path: abs, kind: "symlink-outside", reason: "symlink leads outside the workspace" });
        return false;
      }
    }
    return true;
  };
  let rootNames: string[];
  try {
    rootNames = readdirSync(root).filter(isCuratedFile).sort();
  } catch (e) {
    out.skipped.push({ path: root, kind: "unreadable", reason: `cannot list the workspace root: ${errorMessage(e)}` });
    rootNames = [];
  }
  for (const name of rootNames) {
    const abs = join(root, name);
    if (!usable(abs)) continue;
    addFile(abs, { realRoot, visited, out, classify: () => ({ class: "curated" }), keyOf });
  }
  const pace = { sinceYield: 0 };
  const rootCtx: WalkContext = {
    realRoot,
    visited,
    out,
    keyOf,
    pace,
    classify: (abs) => classifyWorkspacePath(keyOf(abs)),
  };
  for (const sub of Object.keys(MEMORY_DIRS)) {
    const abs = join(root, sub);
    if (usable(abs)) await walk(abs, rootCtx);
  }
  for (const [p, classify] of extraTrees(target)) {
    const st = tryStat(p);
    if (!st) {
      out.skipped.push({ path: p, kind: "missing", reason: "configured path does not exist" });
      continue;
    }
    if (st.isFile()) {
      addFile(p, { realRoot: p, visited, out, classify, keyOf });
      continue;
    }
    // Each tree has its own visited set: a tree inside another (Claude Code's memory folders inside
    // its transcript dir) is walked with its own classification.
    await walk(p, { realRoot: realpathSync(p), visited: new Set(), out, classify, keyOf, pace });
  }
  // De-duplicate (an extra path inside the root) and sort for deterministic processing.
  const seen = new Map<string, WorkspaceFile>();
  for (const f of out.files) if (!seen.has(f.path)) seen.set(f.path, f);
  out.files = [...seen.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  out.skipped = out.skipped.map((s) => ({ ...s, path: keyOf(s.path) }));
  return out;
}

type Classify = (absPath: string) => Classification | null;

/** The trees outside the root's layout (transcript dirs, extra paths, Claude Code's memory), each with its classification. */
function extraTrees(target: ScanTarget): [string, Classify][] {
  return [
    ...(target.transcriptDirs ?? []).map((d): [string, Classify] => [d, (abs) => classifyExtraPath(abs, true)]),
    ...(target.extraPaths ?? []).map((d): [string, Classify] => [d, (abs) => classifyExtraPath(abs, false)]),
    ...(target.claudeMemory ?? []).map((d): [string, Classify] => [d, classifyClaudeMemoryPath]),
    ...(target.claudeProjects
      ? [
          [
            target.claudeProjects.dir,
            (abs: string) => (target.claudeProjects!.accepts(abs) ? classifyClaudeMemoryPath(abs) : null),
          ] as [string, Classify],
        ]
      : []),
  ];
}

/** True when any segment of a relative path is a dot-dir/file or node_modules. */
function hasIgnoredSegment(rel: string): boolean {
  return rel.split("/").some(isIgnoredSegment);
}

/**
 * Looks at one path (e.g. from a watcher event) without scanning the tree: the memory file it is,
 * or null when it is gone, not a memory file, ignored, or a symlink leading out of its tree.
 */
export function statOne(target: ScanTarget, absPath: string): WorkspaceFile | null {
  const trees: { base: string; classify: (abs: string, rel: string) => Classification | null }[] = [
    { base: target.root, classify: (_abs, rel) => classifyWorkspacePath(rel) },
    ...extraTrees(target).map(([base, classify]) => ({ base, classify })),
  ];
  for (const tree of trees) {
    const rel = toPosix(relative(tree.base, absPath));
    const inside = rel === "" ? tree.base === absPath : !rel.startsWith("..") && !rel.startsWith("/");
    if (!inside) continue;
    // Ignored in this tree (a dot-dir under the root) may still be another tree's (an extraPath there).
    if (rel && hasIgnoredSegment(rel)) continue;
    const cls = tree.classify(absPath, rel || absPath.slice(absPath.lastIndexOf("/") + 1));
    if (!cls) continue;
    const st = tryStat(absPath);
    if (!st?.isFile()) return null;
    const realBase = tryRealpath(tree.base);
    const real = tryRealpath(absPath);
    if (!realBase || !real || !isInside(realBase, real)) return null;
    const rootRel = relative(target.root, absPath);
    const key = rootRel.startsWith("..") || rootRel === "" ? absPath : toPosix(rootRel);
    return {
      path: key,
      absPath,
      class: cls.class,
      ...(cls.date ? { date: cls.date } : {}),
      size: st.size,
      mtimeMs: Math.floor(st.mtimeMs),
    };
  }
  return null;
}
