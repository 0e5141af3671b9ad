import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import { constants } from "node:fs";
import { isAbsolute } from "node:path";
import { parseTranscript, type TranscriptMessage } from "../ingest/transcript.js";
import { KeyedLock } from "../memory-files/append.js";
import type { MemoryWriter, PendingEntry, WriteTarget } from "../memory-files/writer.js";
import type { SessionRecord, StateStore } from "../session/state.js";
import { groupTurns, messageHash, turnEntry, type TurnEntry } from "./turns.js";
import { errorMessage } from "../util/error-message.js";

/**
 * memory.capture: the substantive turns of a session not captured yet become daily-log entries.
 * A per-session watermark in the state file (byte offset + line for a transcript, message count
 * for a messages array, plus the last captured message's hash) makes each message captured once,
 * across daemon restarts; a rewritten or truncated transcript is realigned on that hash.
 */

export interface CaptureInput {
  session_id: string;
  messages?: unknown[];
  transcript_path?: string;
}

export interface CaptureOutcome {
  stored: boolean;
  entries: number;
  /** Index key of the (last) daily log written. */
  path?: string;
  paths: string[];
  absPaths: string[];
  startLine?: number;
  endLine?: number;
  /** Turns skipped (trivial, too short, no reply). */
  skipped: number;
  duplicates: number;
  redactions: number;
  /** Messages newly seen by this capture. */
  messages: number;
}

export class CaptureError extends Error {}

/** Longest transcript tail read at once (a first capture of a huge session starts this far from the end). */
const MAX_READ_BYTES = 32 * 1024 * 1024;
const TAIL_HASH_BYTES = 256;

export class Capturer {
  private readonly sessions = new KeyedLock();

  constructor(
    private readonly writer: MemoryWriter,
    private readonly state: StateStore,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Captures what is new; serialised per session. */
  capture(ws: WriteTarget, input: CaptureInput): Promise<CaptureOutcome> {
    if (!input.messages && !input.transcript_path) throw new CaptureError("give messages or transcript_path");
    return this.sessions.run(`${ws.name}\0${input.session_id}`, () => this.run(ws, input));
  }

  private async run(ws: WriteTarget, input: CaptureInput): Promise<CaptureOutcome> {
    const rec = this.state.session(ws.name, input.session_id);
    const read = input.transcript_path
      ? await readTranscript(input.transcript_path, rec)
      : readMessages(input.messages ?? [], rec);
    const { turns, complete } = groupTurns(read.fresh);
    const now = this.clock();
    const entries: TurnEntry[] = [];
    let skipped = 0;
    for (const t of turns) {
      const e = turnEntry(t, input.session_id, now);
      if ("skip" in e) skipped++;
      else entries.push(e);
    }
    const out: CaptureOutcome = {
      stored: false,
      entries: 0,
      paths: [],
      absPaths: [],
      skipped,
      duplicates: 0,
      redactions: 0,
      messages: read.fresh.length,
    };
    // Group by day (a session may span midnight), one append per file.
    const byDate = new Map<string, TurnEntry[]>();
    for (const e of entries) byDate.set(e.date, [...(byDate.get(e.date) ?? []), e]);
    for (const [date, list] of [...byDate].sort(([a], [b]) => a.localeCompare(b))) {
      const pending: PendingEntry[] = list.map((e) => ({
        lines: e.lines,
        dedupeText: e.dedupeText,
        dedupeLead: e.dedupeLead,
        kind: "capture" as const,
      }));
      const res = await this.writer.write(ws, "daily", date, pending);
      out.duplicates += res.duplicates.length;
      if (res.written.length === 0) continue;
      out.entries += res.written.length;
      out.redactions += list
        .filter((e) => res.written.some((w) => w.entry.dedupeText === e.dedupeText))
        .reduce((n, e) => n + e.redactions, 0);
      out.path = res.key;
      out.paths.push(res.key);
      out.absPaths.push(res.absPath);
      const first = res.written[0]!;
      const last = res.written[res.written.length - 1]!;
      if (first.startLine !== undefined) {
        out.startLine = first.startLine;
        out.endLine = last.endLine!;
      }
    }
    out.stored = out.entries > 0;
    // Advance the watermark past complete turns only, then remember what the session was doing.
    read.commit(complete);
    const lastEntry = entries[entries.length - 1];
    if (lastEntry) {
      rec.goal = lastEntry.goal;
      rec.focus = lastEntry.focus;
    }
    if (read.fresh.length > 0 || out.stored) rec.lastActivity = now;
    rec.captured += out.entries;
    this.state.save(ws.name);
    return out;
  }
}

interface Read {
  /** Messages not captured yet. */
  fresh: TranscriptMessage[];
  /** Moves the watermark past the first `n` fresh messages (and whatever non-message lines lie between). */
  commit(n: number): void;
}

/** Skips messages up to and including the one with this hash (the last captured). */
function afterHash(messages: TranscriptMessage[], hash: string | undefined): TranscriptMessage[] {
  if (!hash) return messages;
  for (let i = messages.length - 1; i >= 0; i--) if (messageHash(messages[i]!) === hash) return messages.slice(i + 1);
  return messages; // not found: the history was replaced; dedupe catches repeats
}

function readMessages(raw: unknown[], rec: SessionRecord): Read {
  const { messages } = parseTranscript(raw.map((m) => safeJson(m)).join("\n"));
  const mark = rec.messages;
  let fresh: TranscriptMessage[];
  if (mark && mark.count <= raw.length) {
    const before = messages.filter((m) => m.line <= mark.count);
    const last = before[before.length - 1];
    const intact = !mark.lastHash || (last !== undefined && messageHash(last) === mark.lastHash);
    fresh = intact ? messages.filter((m) => m.line > mark.count) : afterHash(messages, mark.lastHash);
  } else {
    fresh = mark ? afterHash(messages, mark.lastHash) : messages;
  }
  return {
    fresh,
    commit(n) {
      const count = n < fresh.length ? fresh[n]!.line - 1 : raw.length;
      const consumed = n > 0 ? fresh[n - 1] : undefined;
      const lastHash = consumed ? messageHash(consumed) : mark?.lastHash;
      rec.messages = { count, ...(lastHash ? { lastHash } : {}) };
    },
  };
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? "null";
  } catch {
    return "null";
  }
}

async function readTranscript(path: string, rec: SessionRecord): Promise<Read> {
  if (!isAbsolute(path)) throw new CaptureError("transcript_path must be absolute");
  if (!/\.jsonl$/i.test(path)) throw new CaptureError("transcript_path must be a .jsonl file");
  let fh;
  try {
    // Non-blocking: a FIFO named *.jsonl must not hang a thread-pool thread; fstat refuses it below.
    fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw new CaptureError(`cannot read transcript ${path}: ${(e as NodeJS.ErrnoException).code ?? errorMessage(e)}`);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new CaptureError(`transcript ${path} is not a file`);
    const mark = rec.transcript?.path === path ? rec.transcript : undefined;
    // Resume at the watermark when the bytes before it are unchanged; else re-read and realign.
    let start = 0;
    let line = 0;
    let realign = !!mark;
    if (mark && mark.offset <= st.size) {
      const from = Math.max(0, mark.offset - TAIL_HASH_BYTES);
      const tail = Buffer.alloc(mark.offset - from);
      if (tail.length) await fh.read(tail, 0, tail.length, from);
      if (hashBytes(tail) === mark.tailHash) {
        start = mark.offset;
        line = mark.line;
        realign = false;
      }
    }
    let partialFirst = false;
    if (st.size - start > MAX_READ_BYTES) {
      start = st.size - MAX_READ_BYTES;
      partialFirst = true;
    }
    // Read from a little before `start` too, so the next watermark's tail hash can be computed.
    const readStart = Math.max(0, start - TAIL_HASH_BYTES);
    const buf = Buffer.alloc(st.size - readStart);
    if (buf.length) await fh.read(buf, 0, buf.length, readStart);
    let bodyStart = start - readStart;
    if (partialFirst) {
      const nl = buf.indexOf(10, bodyStart);
      bodyStart = nl === -1 ? buf.length : nl + 1;
      line = 0; // unknown: counted from here
    }
    // A line not finished yet (the agent is still writing it) is left for next time.
    const bodyEnd = Math.max(bodyStart, buf.lastIndexOf(10) + 1);
    const body = buf.subarray(bodyStart, bodyEnd);
    const lineStarts: number[] = [];
    for (let i = 0; i < body.length;) {
      lineStarts.push(i);
      const nl = body.indexOf(10, i);
      if (nl === -1) break;
      i = nl + 1;
    }
    const { messages } = parseTranscript(body.toString("utf8"), { firstLine: line + 1 });
    const fresh = realign ? afterHash(messages, mark?.lastHash) : messages;
    return {
      fresh,
      commit(n) {
        // Consumed: everything before the first message of an incomplete turn, else all complete lines.
        const stopLine = n < fresh.length ? fresh[n]!.line : line + lineStarts.length + 1;
        const rel = stopLine - (line + 1);
        const bodyOffset = rel < lineStarts.length ? lineStarts[rel]! : body.length;
        const inBuf = bodyStart + bodyOffset;
        const tail = buf.subarray(Math.max(0, inBuf - TAIL_HASH_BYTES), inBuf);
        const consumed = n > 0 ? fresh[n - 1] : undefined;
        const lastHash = consumed ? messageHash(consumed) : mark?.lastHash;
        // The tail must be complete (TAIL_HASH_BYTES, or from the file's start) to be comparable.
        const offset = readStart + inBuf;
        const complete = tail.length === Math.min(TAIL_HASH_BYTES, offset);
        rec.transcript = {
          path,
          offset,
          line: stopLine - 1,
          tailHash: complete ? hashBytes(tail) : "",
          ...(lastHash ? { lastHash } : {}),
        };
      },
    };
  } finally {
    await fh.close();
  }
}

function hashBytes(b: Buffer): string {
  return createHash("sha256").update(b).digest("hex");
}
