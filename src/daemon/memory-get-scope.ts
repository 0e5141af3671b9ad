import type { WorkspaceEngine } from "../engine/engine.js";
import { fileVisibilityOf } from "../indexer/sync-visibility.js";
import { ErrorCodes } from "../rpc/protocol.js";
import { RpcError } from "../rpc/server.js";
import { readLineWindow } from "../util/read-lines.js";
import { lineVisibilities } from "../visibility/line-tags.js";
import { scopeLabel, visibleTo, type ReadScope } from "../visibility/visibility.js";
import type { WorkspaceFile } from "../workspace/scan.js";

/** Lines read before and after a window to find the tags of the entries it cuts through. */
const CONTEXT_LINES = 200;

/**
 * memory.get in a scope narrower than private: a file the scope may not see as a whole (MEMORY.md,
 * USER.md and what resolves to them, a DM's transcript, another group's) is refused; in a file it
 * may see, the lines of entries it may not see come back empty. Returns the hidden line numbers.
 */
export async function hiddenLines(
  ws: WorkspaceEngine,
  file: WorkspaceFile,
  scope: ReadScope,
  from: number,
  count: number,
): Promise<Set<number>> {
  const hidden = new Set<number>();
  if (scope.kind === "private" || ws.shared) return hidden;
  const whole = fileVisibilityOf(ws.store, file);
  if (!visibleTo(scope, whole)) {
    throw new RpcError(
      ErrorCodes.NotVisible,
      `not visible: ${file.path} is ${whole === "private" ? "private" : `${whole}'s`} memory and this request's scope is ${scopeLabel(scope)}; ` +
        `a group conversation never sees MEMORY.md, USER.md, a private session's memories or another group's: ask from a private session`,
      { path: file.path, visibility: whole },
    );
  }
  if (file.class === "transcript") return hidden;
  const start = Math.max(1, from - CONTEXT_LINES);
  const around = await readLineWindow(file.absPath, {
    maxBytes: ws.indexer.maxFileBytes,
    from: start,
    count: count + (from - start) + CONTEXT_LINES,
    maxChars: Number.MAX_SAFE_INTEGER,
  });
  const vis = lineVisibilities(around.lines);
  vis.forEach((v, i) => {
    if (!visibleTo(scope, v)) hidden.add(start + i);
  });
  return hidden;
}
