/** The result type of each method. */
import type { ConsolidationReport, PromotionCandidate, SyncReport } from "./maintenance.js";
import type { CaptureResult, MemoryGetResult, RecallResult, SaveResult, SearchResponse } from "./memory.js";
import type { CheckpointResult, SessionStartResult, SleepResult } from "./session.js";
import type { CortexStatus, IndexStatusResult, WorkspaceSyncStatus } from "./status.js";
import type { AuditTailResult } from "./audit.js";
import type { IndexHistoryResult } from "./history.js";

export interface MethodResults {
  "memory.search": SearchResponse;
  "memory.recall": RecallResult;
  "memory.save": SaveResult;
  "memory.capture": CaptureResult;
  "session.start": SessionStartResult;
  "session.touch": { ok: true };
  "session.checkpoint": CheckpointResult;
  "session.sleep": SleepResult;
  "session.reset": { workspace: string; cleared: number };
  "memory.get": MemoryGetResult;
  "index.sync": { reports: SyncReport[] };
  "index.status": IndexStatusResult;
  "index.history": IndexHistoryResult;
  "consolidate.run": { reports: ConsolidationReport[] };
  "consolidate.report": { reports: ConsolidationReport[] };
  "promote.list": { workspace: string; candidates: PromotionCandidate[] }[];
  "promote.apply": {
    workspace: string;
    applied: number;
    backup?: string;
    heading?: string;
    candidates: PromotionCandidate[];
  }[];
  "sync.git": { workspace: string; gitSync: NonNullable<WorkspaceSyncStatus["gitSync"]> }[];
  "cortex.status": CortexStatus;
  "audit.tail": AuditTailResult;
  "console.open": { url: string; port: number; tokenFile: string };
  "daemon.ping": { pong: true; version: string; pid: number; uptimeMs: number };
  "daemon.shutdown": { ok: true };
  "daemon.reload": { applied: string[]; restartNeeded: string[] };
}
