import { closeSync, openSync, readSync, statSync } from "node:fs";
import { readRegularTextSync } from "../util/regular-file.js";
import { join } from "node:path";
import { CURATED_FILES } from "../workspace/layout.js";
import type { Chunk } from "../ingest/types.js";
import type { WorkspaceFile } from "../workspace/scan.js";
import { fileVisibility } from "../visibility/file-visibility.js";
import { narrower, type Visibility } from "../visibility/visibility.js";
import type { IndexStore } from "../index/repos/store.js";

/** Bytes of a transcript read for its session key. */
const HEAD_BYTES = 64 * 1024;

function headOf(absPath: string, buf?: Buffer): string {
  if (buf) return buf.subarray(0, HEAD_BYTES).toString("utf8");
  let fd: number | undefined;
  try {
    fd = openSync(absPath, "r");
    const b = Buffer.alloc(HEAD_BYTES);
    return b.subarray(0, readSync(fd, b, 0, HEAD_BYTES, 0)).toString("utf8");
  } catch {
    return "";
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The visibility a file gives its chunks (visibility/file-visibility.ts), with what the index knows;
 * `hash`: the chained hash of `buf` when the caller has it (a huge file is not hashed again).
 */
export function fileVisibilityOf(store: IndexStore, file: WorkspaceFile, buf?: Buffer, hash?: string): Visibility {
  return fileVisibility({
    path: file.path,
    absPath: file.absPath,
    class: file.class,
    ...(file.class === "transcript" ? { head: headOf(file.absPath, buf) } : {}),
    ...(buf && file.class !== "transcript"
      ? {
          copiesCurated: () =>
            copiesRootCurated(file, buf) ||
            (hash !== undefined ? store.visibility.isCuratedHash(hash) : store.visibility.isCuratedContent(buf)),
        }
      : {}),
  });
}

/**
 * Whether the file holds exactly what a curated file of its workspace's root holds (read from the
 * disk, so a copy indexed in the same sync as MEMORY.md is caught too); only files of the same size are read.
 */
function copiesRootCurated(file: WorkspaceFile, buf: Buffer): boolean {
  if (file.path.startsWith("/") || !file.absPath.endsWith(file.path)) return false;
  const root = file.absPath.slice(0, -file.path.length);
  for (const name of CURATED_FILES) {
    const p = join(root, name);
    try {
      if (statSync(p).size !== buf.length) continue;
      if (readRegularTextSync(p, { maxBytes: buf.length }) === buf.toString("utf8")) return true;
    } catch {
      // not there
    }
  }
  return false;
}

/** Each chunk's own visibility (its entries' tags) narrowed by its file's. */
export function withVisibility<C extends Chunk>(chunks: C[], file: Visibility): C[] {
  return chunks.map((c) => ({ ...c, visibility: narrower(file, (c.visibility ?? "open") as Visibility) }));
}
