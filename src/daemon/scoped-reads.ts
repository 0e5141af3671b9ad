import type { WorkspaceEngine } from "../engine/engine.js";
import { AuditLog, auditDir, type AuditMemory } from "../audit/audit-log.js";
import { readAudit, parseSince } from "../audit/audit-read.js";
import type { AuditEntry, AuditTailResult, RecallResult, SearchResponse } from "../rpc/protocol.js";
import type { RecentEntry } from "../session/start-context.js";
import { ErrorCodes } from "../rpc/protocol.js";
import { RpcError } from "../rpc/server.js";
import {
  narrower,
  readScope,
  sessionReadScope,
  scopeLabel,
  visibleSet,
  type ReadScope,
  type Visibility,
} from "../visibility/visibility.js";
import type { Engine } from "../engine/engine.js";

/**
 * The read side of visibility and the audit log, for the method handlers: the scope a request reads
 * in (a caller that states none reads private, what a local connection is entitled to), the
 * visibilities it may see in a workspace, and the record of each recall/search answer.
 */

export interface ScopeParams {
  scope?: "private" | "group" | undefined;
  group?: string | undefined;
}

export interface AuditParams {
  client?: string | undefined;
  session_id?: string | undefined;
  audit?: boolean | undefined;
  query: string;
}

export function scopeOf(p: ScopeParams): ReadScope {
  return readScope(p.scope, p.group);
}

/** The visibilities the scope may see in this workspace (undefined: all; a team's workspace is all shared). */
export function visibleIn(ws: WorkspaceEngine, scope: ReadScope): string[] | undefined {
  if (ws.shared) return undefined;
  return visibleSet(scope) ?? undefined;
}

export class ReadAudit {
  readonly log: AuditLog;

  constructor(
    private readonly engine: Engine,
    onError: (message: string) => void = () => {},
  ) {
    this.log = new AuditLog(auditDir(engine.dataDir), () => engine.config.audit, onError);
  }

  /**
   * Each memory's visibility (the narrowest of the chunks its lines overlap; "unknown" when none):
   * one read per workspace for a whole answer, not one per memory.
   */
  private visibilitiesOf(
    spans: ReadonlyArray<{ ws: WorkspaceEngine; path: string; startLine: number; endLine: number }>,
  ): string[] {
    const out = spans.map(() => "shared");
    const byWorkspace = new Map<WorkspaceEngine, number[]>();
    spans.forEach((s, i) => {
      if (s.ws.shared) return;
      const at = byWorkspace.get(s.ws);
      if (at) at.push(i);
      else byWorkspace.set(s.ws, [i]);
    });
    for (const [ws, at] of byWorkspace) {
      const found = ws.store.visibility.ofSpans(
        at.map((i) => ({ path: spans[i]!.path, from: spans[i]!.startLine, to: spans[i]!.endLine })),
      );
      at.forEach((i, k) => {
        const vis = found[k] as Visibility[];
        out[i] = vis.length === 0 ? "unknown" : vis.reduce(narrower);
      });
    }
    return out;
  }

  private workspaceNamed(name: string | undefined, fallback: WorkspaceEngine): WorkspaceEngine {
    return (name && this.engine.workspaces.find((w) => w.name === name)) || fallback;
  }

  recall(ws: WorkspaceEngine, scope: ReadScope, p: AuditParams, res: RecallResult): void {
    if (p.audit === false || !this.log.enabled) return;
    const visibility = this.visibilitiesOf(
      res.memories.map((m) => ({ ...m, ws: this.workspaceNamed(m.source?.workspace, ws) })),
    );
    const memories: AuditMemory[] = res.memories.map((m, i) => ({
      path: m.path,
      startLine: m.startLine,
      endLine: m.endLine,
      visibility: visibility[i]!,
      bytes: Buffer.byteLength(m.text),
    }));
    this.write("memory.recall", ws, scope, p, memories, Buffer.byteLength(res.context));
  }

  search(ws: WorkspaceEngine, scope: ReadScope, p: AuditParams, res: SearchResponse): void {
    if (p.audit === false || !this.log.enabled) return;
    const unknown = res.results.filter((h) => h.visibility === undefined);
    const found = new Map(this.visibilitiesOf(unknown.map((h) => ({ ...h, ws }))).map((v, i) => [unknown[i]!, v]));
    const memories: AuditMemory[] = res.results.map((h) => ({
      path: h.path,
      startLine: h.startLine,
      endLine: h.endLine,
      visibility: h.visibility ?? found.get(h)!,
      bytes: Buffer.byteLength(h.snippet),
    }));
    this.write(
      "memory.search",
      ws,
      scope,
      p,
      memories,
      memories.reduce((n, m) => n + m.bytes, 0),
    );
  }

  /** A session start's recent-memory context (SessionStart hooks inject it). */
  sessionStart(ws: WorkspaceEngine, session: string, given: readonly RecentEntry[], context: string): void {
    if (!this.log.enabled || given.length === 0) return;
    const memories: AuditMemory[] = given.map((e) => ({
      path: `memory/${e.file}`,
      startLine: e.lineNo,
      endLine: e.lineNo,
      visibility: e.visibility,
      bytes: Buffer.byteLength(e.text),
    }));
    const scope = sessionReadScope(session);
    this.write("session.start", ws, scope, { session_id: session, query: "" }, memories, Buffer.byteLength(context));
  }

  private write(
    method: AuditEntry["method"],
    ws: WorkspaceEngine,
    scope: ReadScope,
    p: AuditParams,
    memories: AuditMemory[],
    bytes: number,
  ): void {
    this.log.record({
      at: new Date().toISOString(),
      method,
      ...(p.client ? { client: p.client } : {}),
      ...(p.session_id ? { session: p.session_id } : {}),
      workspace: ws.name,
      scope: scopeLabel(scope),
      query: p.query,
      memories,
      bytes,
    });
  }

  tail(p: {
    session_id?: string | undefined;
    since?: string | undefined;
    limit?: number | undefined;
  }): AuditTailResult {
    let since: number | undefined;
    if (p.since !== undefined) {
      since = parseSince(p.since);
      if (since === undefined)
        throw new RpcError(
          ErrorCodes.InvalidParams,
          `invalid params: since: expected "30m", "2h", "7d" or an ISO date/time, got "${p.since}"`,
        );
    }
    return {
      ...this.log.state(),
      entries: readAudit(auditDir(this.engine.dataDir), {
        ...(p.session_id ? { session: p.session_id } : {}),
        ...(since !== undefined ? { since } : {}),
        limit: p.limit ?? 20,
      }),
    };
  }
}
