import type { LoadedConfig } from "../config/load.js";
import type { WorkspaceConfig } from "../config/schema.js";
import { socketPathFor } from "../daemon/socket.js";
import { MemoryWriter, saveResult } from "../memory-files/writer.js";
import type { ParamsOf, SaveResult } from "../rpc/protocol.js";
import { StateStore } from "../session/state.js";
import { defaultNamespace } from "../workspace/namespace.js";
import { missingRootProblem } from "../workspace/resolve.js";
import { writeOptions } from "../multi-device/write-target.js";
import { DaemonUnavailableError, withClient } from "./client.js";
import { saveVisibility } from "../visibility/visibility.js";

/**
 * Saving a memory from a client (the CLI's `save`, the MCP server's `memory_save`): through the
 * daemon when it runs; when no daemon listens, the same write (redaction, dedupe, the state file) is
 * made here and the file is indexed when the daemon next starts. A daemon that is up but does not
 * answer in time is an error, not a reason to write behind its back.
 */

export type SaveParams = Omit<ParamsOf<"memory.save">, "workspace">;

export interface ClientSave {
  result: SaveResult;
  /** No daemon was running: the file was written directly, not indexed yet. */
  offline: boolean;
}

/**
 * @param workspace the workspace as resolved for this command (src/workspace/resolve.ts): the daemon
 *   gets `daemon` (its absolute root, or nothing for the daemon's first workspace), the offline path
 *   writes into `target`.
 */
export async function saveMemory(
  loaded: LoadedConfig,
  params: SaveParams,
  workspace: { daemon?: string | undefined; target: WorkspaceConfig },
  opts: { timeoutMs?: number } = {},
): Promise<ClientSave> {
  try {
    const result = await withClient(
      socketPathFor(loaded),
      (c) => c.call("memory.save", { ...params, ...(workspace.daemon ? { workspace: workspace.daemon } : {}) }),
      {
        timeoutMs: opts.timeoutMs ?? 10_000,
      },
    );
    return { result, offline: false };
  } catch (e) {
    if (!(e instanceof DaemonUnavailableError) || e.reason === "timeout") throw e;
  }
  const w = workspace.target;
  const problem = missingRootProblem(w.path);
  if (problem) throw new Error(problem);
  // A team's (shared) workspace only when named, as the daemon does.
  if (w.shared && !workspace.daemon)
    throw new Error(
      `every configured workspace is shared (a team's): name the one to write to with --workspace (e.g. ${w.name ?? w.path})`,
    );
  const writer = new MemoryWriter(StateStore.forDataDir(loaded.dataDir));
  const out = await writer.save(
    { root: w.path, name: w.name ?? defaultNamespace(w.path), ...writeOptions(w, loaded.config) },
    { ...params, visibility: saveVisibility(params) },
  );
  return { result: saveResult(out, out.stored ? false : undefined), offline: true };
}
