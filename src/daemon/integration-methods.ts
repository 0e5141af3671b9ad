import { join, relative, sep } from "node:path";
import type { WorkspaceEngine } from "../engine/engine.js";
import { CaptureError, Capturer, type CaptureOutcome } from "../capture/capture.js";
import { indexedConflict } from "../memory-files/indexed-conflict.js";
import { MemoryWriter, saveResult } from "../memory-files/writer.js";
import { WritePathRefusedError } from "../memory-files/write-path.js";
import { ErrorCodes, type CaptureResult, type SleepResult } from "../rpc/protocol.js";
import { RpcError, type MethodHandlers } from "../rpc/server.js";
import { Sessions } from "../session/lifecycle.js";
import { StateStore } from "../session/state.js";
import type { MethodDeps } from "./method-deps.js";
import { pickSessionWorkspace, pickWriteWorkspace } from "./pick-workspace.js";
import { saveVisibility, VisibilityError } from "../visibility/visibility.js";
import type { ReadAudit } from "./scoped-reads.js";

/** How long a write waits for its file to be indexed before answering (the sync still finishes). */
export const INDEX_WAIT_MS = 2000;

/**
 * Write-side and integration methods: memory.save, memory.capture and the session lifecycle
 * (session.start / touch / checkpoint / sleep). Every write goes to the memory files first
 * (MemoryWriter: redaction, dedupe, O_APPEND under a per-file lock), then the written file is
 * indexed at once so it is searchable when the reply arrives.
 */
export function createIntegrationHandlers(d: MethodDeps, audit?: ReadAudit): MethodHandlers {
  const state = StateStore.forDataDir(d.engine.dataDir);
  const writer = new MemoryWriter(state, Date.now, d.gitSync, (ws, key) => {
    const engine = d.engine.workspaces.find((w) => w.name === ws.name);
    return engine ? indexedConflict(engine.indexer, ws.root, key) : undefined;
  });
  const capturer = new Capturer(writer, state);
  const sessions = new Sessions(state, writer, capturer);

  /** Indexes the written files now; false when that fails or takes longer than INDEX_WAIT_MS. */
  async function index(ws: WorkspaceEngine, absPaths: string[]): Promise<boolean> {
    return (await indexWhy(ws, absPaths)).indexed;
  }

  /**
   * Indexes the written files now: indexed only when the sync succeeded within INDEX_WAIT_MS and
   * passed over none of them (a file skipped as too large, or cut at the chunk cap, is not searchable
   * whatever the sync says); `why` says what kept an entry out.
   */
  async function indexWhy(ws: WorkspaceEngine, absPaths: string[]): Promise<{ indexed: boolean; why?: string }> {
    if (absPaths.length === 0) return { indexed: true };
    const keys = new Set(absPaths.map((p) => relative(ws.root, p).split(sep).join("/")));
    const sync = d.queue.sync(ws, { paths: absPaths }).then(
      (report) => {
        const left = [...report.skipped, ...report.repaired.filter((r) => r.kind === "chunk-cap")].find((s) =>
          keys.has(s.path),
        );
        return left ? { indexed: false, why: `${left.path} is not indexed: ${left.reason}` } : { indexed: true };
      },
      () => ({ indexed: false }),
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<{ indexed: boolean }>(
      (r) => (timer = setTimeout(() => r({ indexed: false }), INDEX_WAIT_MS)),
    );
    try {
      return await Promise.race([sync, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof CaptureError) throw new RpcError(ErrorCodes.InvalidParams, `invalid params: ${e.message}`);
      if (e instanceof VisibilityError) throw new RpcError(ErrorCodes.NotVisible, e.message);
      if (e instanceof WritePathRefusedError)
        throw new RpcError(ErrorCodes.PathRefused, e.message, { path: e.path, link: e.link });
      throw e;
    }
  }

  async function captureResult(
    ws: WorkspaceEngine,
    c: CaptureOutcome,
    indexedAlready?: boolean,
  ): Promise<CaptureResult> {
    const indexed = indexedAlready ?? (await index(ws, c.absPaths));
    return {
      stored: c.stored,
      entries: c.entries,
      ...(c.path ? { path: c.path } : {}),
      ...(c.paths.length > 1 ? { paths: c.paths } : {}),
      ...(c.startLine !== undefined ? { startLine: c.startLine, endLine: c.endLine! } : {}),
      skipped: c.skipped,
      duplicates: c.duplicates,
      redactions: c.redactions,
      messages: c.messages,
      ...(c.stored ? { indexed } : {}),
    };
  }

  return {
    "memory.save": (p) =>
      guard(async () => {
        const ws = pickWriteWorkspace(d.engine, p.workspace);
        const visibility = saveVisibility(p);
        const out = await writer.save(ws, {
          text: p.text,
          visibility,
          ...(p.target ? { target: p.target } : {}),
          ...(p.importance !== undefined ? { importance: p.importance } : {}),
          ...(p.tags ? { tags: p.tags } : {}),
        });
        if (!out.stored) return saveResult(out);
        const r = await indexWhy(ws, [out.absPath]);
        return saveResult(out, r.indexed, r.why);
      }),
    "memory.capture": (p) =>
      guard(async () => {
        const ws = pickSessionWorkspace(d.engine, p, { write: true });
        const c = await capturer.capture(ws, {
          session_id: p.session_id,
          ...(p.messages ? { messages: p.messages } : {}),
          ...(p.transcript_path ? { transcript_path: p.transcript_path } : {}),
        });
        return captureResult(ws, c);
      }),
    "session.start": (p) =>
      guard(async () => {
        const ws = pickSessionWorkspace(d.engine, p);
        const { given, ...out } = await sessions.start(ws, {
          session_id: p.session_id,
          ...(p.source ? { source: p.source } : {}),
          ...(p.cwd ? { cwd: p.cwd } : {}),
          ...(p.maxChars !== undefined ? { maxChars: p.maxChars } : {}),
          ...(p.lineage ? { lineage: p.lineage } : {}),
        });
        audit?.sessionStart(ws, p.session_id, given ?? [], out.context);
        return out;
      }),
    "session.touch": (p) =>
      sessions.touch(pickSessionWorkspace(d.engine, p), {
        session_id: p.session_id,
        ...(p.prompt ? { prompt: p.prompt } : {}),
        ...(p.cwd ? { cwd: p.cwd } : {}),
        ...(p.lineage ? { lineage: p.lineage } : {}),
      }),
    "session.checkpoint": (p) =>
      guard(async () => {
        const ws = pickSessionWorkspace(d.engine, p, { write: true });
        const out = await sessions.checkpoint(ws, {
          session_id: p.session_id,
          ...(p.messages ? { messages: p.messages } : {}),
          ...(p.transcript_path ? { transcript_path: p.transcript_path } : {}),
          ...(p.summary ? { summary: p.summary } : {}),
        });
        const files = [...(out.captured?.absPaths ?? []), ...(out.stored && out.path ? [join(ws.root, out.path)] : [])];
        const { captured, ...rest } = out;
        const indexed = await index(ws, [...new Set(files)]);
        return { ...rest, ...(captured ? { captured: await captureResult(ws, captured, indexed) } : {}) };
      }),
    "session.reset": (p) => {
      const ws = pickWriteWorkspace(d.engine, p.workspace);
      return { workspace: ws.name, cleared: state.clearSessions(ws.name) };
    },
    "session.sleep": (p) =>
      guard(async () => {
        const ws = pickSessionWorkspace(d.engine, p, { write: true });
        const out = await sessions.sleep(ws, {
          session_id: p.session_id,
          ...(p.messages ? { messages: p.messages } : {}),
          ...(p.transcript_path ? { transcript_path: p.transcript_path } : {}),
          ...(p.reason ? { reason: p.reason } : {}),
          ...(p.checkpoint !== undefined ? { checkpoint: p.checkpoint } : {}),
        });
        const cp = out.checkpoint;
        const cap = cp?.captured ?? out.captured;
        const files = [...(cap?.absPaths ?? []), ...(cp?.stored && cp.path ? [join(ws.root, cp.path)] : [])];
        const indexed = await index(ws, [...new Set(files)]);
        const result: SleepResult = { ok: true, endedAt: out.endedAt };
        if (cp) {
          const { captured, ...rest } = cp;
          result.checkpoint = {
            ...rest,
            ...(captured ? { captured: await captureResult(ws, captured, indexed) } : {}),
          };
        }
        if (out.captured) result.captured = await captureResult(ws, out.captured, indexed);
        return result;
      }),
  };
}
