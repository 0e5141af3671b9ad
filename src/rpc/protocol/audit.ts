/** The audit log's wire types (src/audit, docs/security.md). */

export interface AuditMemory {
  path: string;
  startLine: number;
  endLine: number;
  /** private, group:<id>, open or shared. */
  visibility: string;
  /** Bytes of its text as given. */
  bytes: number;
}

/** One recall or search answer given to a host. */
export interface AuditEntry {
  /** ISO time of the answer. */
  at: string;
  /** session.start: the recent-memory context a starting session is given (SessionStart hooks). */
  method: "memory.recall" | "memory.search" | "session.start";
  /** Who asked: "claude-code", "openclaw", "mcp", "cli", … (as the caller says). */
  client?: string;
  session?: string;
  workspace: string;
  /** private, group or group:<id>. */
  scope: string;
  /** The query with secrets redacted (audit.query "text"). */
  query?: string;
  /** sha256 of the trimmed, lowercased query. */
  queryHash: string;
  memories: AuditMemory[];
  /** Bytes given in all (the context block, or the results' snippets). */
  bytes: number;
}

export interface AuditState {
  enabled: boolean;
  /** The current file (rotated ones beside it, .1, .2, …). */
  path: string;
  query: "text" | "hash";
}

export interface AuditTailResult extends AuditState {
  entries: AuditEntry[];
}
