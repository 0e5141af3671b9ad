import type { Engine, WorkspaceEngine } from "../engine/engine.js";
import { ErrorCodes } from "../rpc/protocol.js";
import { RpcError } from "../rpc/server.js";
import { errorMessage } from "../util/error-message.js";
import { workspaceForCwd } from "../workspace/by-cwd.js";

/** The workspace a call names (default: the engine's), or UnknownWorkspace. */
export function pickWorkspace(engine: Engine, selector: string | undefined): WorkspaceEngine {
  try {
    return engine.workspace(selector);
  } catch (e) {
    throw new RpcError(ErrorCodes.UnknownWorkspace, errorMessage(e));
  }
}

/** The workspace a write goes to: a team's (shared) workspace only when it is named. */
export function pickWriteWorkspace(engine: Engine, selector: string | undefined): WorkspaceEngine {
  const ws = pickWorkspace(engine, selector);
  if (ws.shared && !selector) {
    throw new RpcError(
      ErrorCodes.InvalidParams,
      `every configured workspace is shared (a team's): name the one to write to with "workspace" (e.g. "${ws.name}")`,
    );
  }
  return ws;
}

/**
 * The workspace for an agent's session call: the explicit `workspace` when given; else, with several
 * workspaces configured, the one whose root or `projects` contains the session's `cwd`; else the default.
 * A write (`write: true`) goes to a team's (shared) workspace only when it is named.
 */
export function pickSessionWorkspace(
  engine: Engine,
  p: { workspace?: string | undefined; cwd?: string | undefined },
  opts: { write?: boolean } = {},
): WorkspaceEngine {
  if (!p.workspace && p.cwd && engine.workspaces.length > 1) {
    const candidates = engine.workspaces.filter((ws) => !(opts.write && ws.shared));
    const hit = workspaceForCwd(
      candidates.map((ws) => ({ ws, root: ws.root, projects: ws.config.projects })),
      p.cwd,
    );
    if (hit) return hit.ws;
  }
  return opts.write ? pickWriteWorkspace(engine, p.workspace) : pickWorkspace(engine, p.workspace);
}
