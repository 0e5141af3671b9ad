import { lstat, mkdir, readdir, realpath, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative } from "node:path";

/**
 * The write side of the memory files' path policy, the same as reads (memory.get, the indexer):
 * a write may follow a symlink only while it stays inside the workspace. A symlinked MEMORY.md,
 * daily log or memory/ directory that leads outside, or a dangling one (creating the file would
 * create its target, wherever that is), is refused with WritePathRefusedError naming the link.
 * New files get the mode of the memory files already in their directory (owner-only when none).
 */

export class WritePathRefusedError extends Error {
  override name = "WritePathRefusedError";
  constructor(
    readonly path: string,
    readonly link: string,
    why: string,
  ) {
    super(
      `write refused: ${link} ${why}; memory files are only written inside the workspace (replace the symlink with a real file or directory)`,
    );
  }
}

function inside(dir: string, p: string): boolean {
  const rel = relative(dir, p);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * The real path to write `absPath` (a file under `root`) at, after checking every symlink on the way
 * stays inside the workspace; creates missing directories (0700). Throws WritePathRefusedError.
 */
export async function resolveWritePath(root: string, absPath: string): Promise<string> {
  const realRoot = await realpath(root);
  const rel = relative(root, absPath);
  if (rel.startsWith("..") || isAbsolute(rel))
    throw new WritePathRefusedError(absPath, absPath, "is outside the workspace");
  // Walk the directories below the root: each that exists must resolve inside it.
  const parts = rel.split("/").slice(0, -1);
  let dir = root;
  for (const part of parts) {
    dir = join(dir, part);
    const st = await lstat(dir).catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return null;
      throw e;
    });
    if (!st) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      continue;
    }
    if (st.isSymbolicLink()) {
      const real = await realpath(dir).catch(() => null);
      if (!real) throw new WritePathRefusedError(absPath, dir, "is a dangling symlink");
      if (!inside(realRoot, real))
        throw new WritePathRefusedError(absPath, dir, `is a symlink to ${real}, outside the workspace`);
    }
  }
  const realDir = await realpath(dirname(absPath));
  if (!inside(realRoot, realDir))
    throw new WritePathRefusedError(absPath, dirname(absPath), `leads to ${realDir}, outside the workspace`);
  const target = join(realDir, basename(absPath));
  const st = await lstat(target).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return null;
    throw e;
  });
  if (!st || !st.isSymbolicLink()) return target;
  const real = await realpath(target).catch(() => null);
  if (!real) throw new WritePathRefusedError(absPath, absPath, "is a dangling symlink");
  if (!inside(realRoot, real))
    throw new WritePathRefusedError(absPath, absPath, `is a symlink to ${real}, outside the workspace`);
  return real;
}

/** The mode for a new memory file in `dir`: that of the newest other .md file there, else 0600. */
export async function newFileMode(dir: string, except?: string): Promise<number> {
  let best: { mtimeMs: number; mode: number } | undefined;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0o600;
  }
  for (const name of names) {
    if (!name.endsWith(".md") || name === except) continue;
    const st = await stat(join(dir, name)).catch(() => null);
    if (!st?.isFile()) continue;
    if (!best || st.mtimeMs > best.mtimeMs) best = { mtimeMs: st.mtimeMs, mode: st.mode & 0o666 };
  }
  return best ? best.mode | 0o600 : 0o600;
}
