/** Wire results of the session.* methods. */
import type { CaptureResult } from "./memory.js";

export interface SessionStartResult {
  /** A <cortex_recovery> block when the previous session ended uncleanly (shown once), else "". */
  recovery: string;
  /** Recent daily-log entries as a <cortex_memories> block, or "" (on resume: only entries the session has not seen). */
  context: string;
  /** On source "compact": the session's checkpoint (goal, last focus) as a <cortex_checkpoint> block, else "". */
  checkpoint: string;
  previous?: { session_id: string; lastActivity: string; goal?: string; focus?: string; clean: boolean };
}

export interface CheckpointResult {
  stored: boolean;
  path?: string;
  startLine?: number;
  endLine?: number;
  duplicateOf?: string;
  summary: { goal: string | null; focus: string | null };
  /** The checkpoint's text as written (the summary given, or "Goal: …; last focus: …"). */
  text?: string;
  captured?: CaptureResult;
}

export interface SleepResult {
  ok: true;
  endedAt: string;
  checkpoint?: CheckpointResult;
  captured?: CaptureResult;
}
