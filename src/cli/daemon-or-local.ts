import { DaemonUnavailableError, withClient, type CortexClient } from "../client/client.js";
import { socketPathFor } from "../daemon/socket.js";
import type { Engine, WorkspaceEngine } from "../engine/engine.js";
import { daemonWorkspace, loadForCli, openCliEngine, selectWorkspace, type GlobalOptions } from "./context.js";

/**
 * A maintenance command (consolidate, promote) run by the daemon when it is up, else in this
 * process over the selected workspace (--workspace) or all of them.
 */
export async function runInDaemonOrHere<T>(
  opts: GlobalOptions,
  viaDaemon: {
    /** The daemon call; `ws` is the `workspace` param for --workspace (empty: all / the default). */
    call: (client: CortexClient, ws: { workspace?: string }) => Promise<T[]>;
    timeoutMs: number;
  },
  here: (ws: WorkspaceEngine, engine: Engine) => Promise<T>,
): Promise<T[]> {
  const loaded = loadForCli(opts);
  const workspace = daemonWorkspace(opts);
  try {
    return await withClient(socketPathFor(loaded), (c) => viaDaemon.call(c, workspace ? { workspace } : {}), {
      timeoutMs: viaDaemon.timeoutMs,
    });
  } catch (e) {
    if (!(e instanceof DaemonUnavailableError)) throw e;
  }
  const engine = await openCliEngine(opts, { deferProvider: true });
  try {
    const out: T[] = [];
    for (const ws of opts.workspace ? [selectWorkspace(engine, opts)] : engine.workspaces)
      out.push(await here(ws, engine));
    return out;
  } finally {
    await engine.close();
  }
}
