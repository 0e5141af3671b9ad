import { isAbsolute, join, normalize } from "node:path";
import type { WorkspaceEngine } from "../engine/engine.js";
import { ErrorCodes, type MemoryGetResult } from "../rpc/protocol.js";
import { RpcError } from "../rpc/server.js";
import { ReadFileError } from "../util/read-regular.js";
import { readLineWindow } from "../util/read-lines.js";
import { statOne } from "../workspace/scan.js";
import { PRIVATE_SCOPE, type ReadScope } from "../visibility/visibility.js";
import { hiddenLines } from "./memory-get-scope.js";

export const DEFAULT_GET_LINES = 120;
export const MAX_GET_CHARS = 12_000;

/**
 * Reads lines of a memory file. Only files that are memory files of the workspace (index key or
 * absolute path, no traversal, no symlink out of the tree) are served; anything else is refused, and
 * so is a file larger than the indexer reads (it is not indexed either). Only the lines returned are
 * kept in memory (util/read-lines.ts).
 */
export async function readMemoryLines(
  ws: WorkspaceEngine,
  path: string,
  from = 1,
  lines = DEFAULT_GET_LINES,
  scope: ReadScope = PRIVATE_SCOPE,
): Promise<MemoryGetResult> {
  if (path.includes("\0")) throw new RpcError(ErrorCodes.InvalidParams, "invalid params: path: contains a NUL byte");
  const abs = isAbsolute(path) ? normalize(path) : join(ws.root, normalize(path));
  const file = statOne(ws.target, abs);
  if (!file) {
    throw new RpcError(
      ErrorCodes.PathRefused,
      `path refused: ${path} is not a memory file of workspace ${ws.name} (or does not exist)`,
    );
  }
  let window;
  let hidden: Set<number>;
  try {
    // A group's scope: a file it may not see is refused, entries it may not see come back empty.
    hidden = await hiddenLines(ws, file, scope, from, lines);
    window = await readLineWindow(file.absPath, {
      maxBytes: ws.indexer.maxFileBytes,
      from,
      count: lines,
      maxChars: MAX_GET_CHARS,
    });
  } catch (e) {
    if (!(e instanceof ReadFileError)) throw e;
    throw new RpcError(ErrorCodes.PathRefused, `path refused: ${path}: ${e.message}`);
  }
  const total = window.totalLines;
  const start = Math.min(from, total + 1);
  let out = "";
  let to = start - 1;
  let truncated = false;
  for (let i = 0; i < window.lines.length && start + i <= total; i++) {
    const line = hidden.has(start + i) ? "" : window.lines[i]!;
    if (out.length + line.length + 1 > MAX_GET_CHARS) {
      truncated = true;
      if (to === start - 1) {
        out = line.slice(0, MAX_GET_CHARS);
        to = start + i;
      }
      break;
    }
    out += (out ? "\n" : "") + line;
    to = start + i;
  }
  if (to < total) truncated = true;
  return {
    path: file.path,
    text: out,
    from: start,
    to,
    totalLines: total,
    truncated,
    ...(to < total ? { nextFrom: to + 1 } : {}),
    ...(hidden.size > 0 ? { hidden: [...hidden].filter((n) => n >= start && n <= to).length } : {}),
  };
}
