import type { WorkspaceEngine, Engine } from "../engine/engine.js";
import type { ConsolidationReport } from "../consolidate/report.js";
import type { GitSync } from "../multi-device/git-sync.js";
import type { CortexStatus } from "../rpc/protocol.js";
import type { LatencyWindow } from "./latency.js";
import type { SyncQueue } from "./sync-queue.js";

/** What the RPC method bodies (methods.ts, integration-methods.ts) are given by the daemon. */
export interface MethodDeps {
  engine: Engine;
  queue: SyncQueue;
  searchLatency: LatencyWindow;
  startedAt: number;
  status: () => CortexStatus;
  /** Re-reads the config file. */
  reload: () => { applied: string[]; restartNeeded: string[] };
  /** Begins a graceful shutdown (after the reply is sent). */
  shutdown: () => void;
  /** The scheduled git sync (commits the files cortexd writes; status shows its state). */
  gitSync?: GitSync;
  /** Runs consolidation now (optionally one workspace). */
  consolidate?: (opts: { workspace?: WorkspaceEngine; dryRun: boolean }) => Promise<ConsolidationReport[]>;
  /** Starts the local memory console (src/console) if it is not serving; its URL with the token. */
  openConsole?: () => Promise<{ url: string; port: number; tokenFile: string }>;
}
