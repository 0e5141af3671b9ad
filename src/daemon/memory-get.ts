import { isAbsolute, join, normalize } from "node:path";
import type { WorkspaceEngine } from "../engine/engine.js";
import { ErrorCodes, type MemoryGetResult } from "../rpc/protocol.js";
import { RpcError } from "../rpc/server.js";
import { ReadFileError, readRegularFile } from "../util/read-regular.js";
import { statOne } from "../workspace/scan.js";

export const DEFAULT_GET_LINES = 120;
export const MAX_GET_CHARS = 12_000;

/**
 * Reads lines of a memory file. Only files that are memory files of the workspace (index key or
 * absolute path, no traversal, no symlink out of the tree) are served; anything else is refused, and
 * so is a file larger than the indexer reads (it is not indexed either).
 */
export async function readMemoryLines(ws: WorkspaceEngine, path: string, from = 1, lines = DEFAULT_GET_LINES): Promise<MemoryGetResult> {
  if (path.includes("\0")) throw new RpcError(ErrorCodes.InvalidParams, "invalid params: path: contains a NUL byte");
  const abs = isAbsolute(path) ? normalize(path) : join(ws.root, normalize(path));
  const file = statOne(ws.target, abs);
  if (!file) {
    throw new RpcError(ErrorCodes.PathRefused, `path refused: ${path} is not a memory file of workspace ${ws.name} (or does not exist)`);
  }
  let text: string;
  try {
    text = (await readRegularFile(file.absPath, ws.indexer.maxFileBytes)).toString("utf8");
  } catch (e) {
    if (!(e instanceof ReadFileError)) throw e;
    throw new RpcError(ErrorCodes.PathRefused, `path refused: ${path}: ${e.message}`);
  }
  const all = text.split(/\r?\n/);
  if (all.length > 1 && all[all.length - 1] === "") all.pop();
  const start = Math.min(from, all.length + 1);
  let out = "";
  let to = start - 1;
  let truncated = false;
  for (let i = start - 1; i < all.length && i < start - 1 + lines; i++) {
    const line = all[i]!;
    if (out.length + line.length + 1 > MAX_GET_CHARS) {
      truncated = true;
      if (to === start - 1) {
        out = line.slice(0, MAX_GET_CHARS);
        to = i + 1;
      }
      break;
    }
    out += (out ? "\n" : "") + line;
    to = i + 1;
  }
  if (to < all.length) truncated = true;
  return {
    path: file.path,
    text: out,
    from: start,
    to,
    totalLines: all.length,
    truncated,
    ...(to < all.length ? { nextFrom: to + 1 } : {}),
  };
}
