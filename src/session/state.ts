import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fsWriteFault } from "../util/write-fault.js";
import { SavesJournal } from "./saves-journal.js";

/**
 * cortexd's own small state, per namespace, in `<dataDir>/state/<namespace>.json`: session
 * lifecycle (activity, goal/focus, clean end), capture watermarks, and the recent saves used for
 * dedupe. The memory files stay the source of truth for memories; this file only says what was
 * already captured and how sessions ended. Written atomically (temp file, fsync, rename) after
 * every change to a session, so a watermark survives a crash or restart of the daemon. The recent
 * saves, which grow with every save, are appended to a journal beside it instead
 * (saves-journal.ts), so a save or a touch costs the same however many saves came before.
 */

export const STATE_VERSION = 1;

/** A recent write (memory.save, capture, checkpoint) kept for dedupe. */
export interface RecentSave {
  at: number;
  /** The text as written (redacted), at most MAX_RECENT_TEXT chars. */
  text: string;
  /** "memory/2026-11-29.md:12" (index key and first line), where it was written. */
  where: string;
  /** What wrote it; checkpoints are only compared with checkpoints. Default "save". */
  kind?: "save" | "capture" | "checkpoint";
  /** A captured turn's request (the user's words): a turn repeats another only if its request does too. */
  lead?: string;
}

/** Where capture of a transcript file stopped. */
export interface TranscriptMark {
  path: string;
  /** Bytes consumed (always at a line start). */
  offset: number;
  /** JSONL lines consumed. */
  line: number;
  /** sha256 of the bytes just before offset (up to 256): proves the consumed prefix is unchanged. */
  tailHash: string;
  /** Hash of the last consumed message: realigns after the file was rewritten. */
  lastHash?: string;
}

/** Where capture of a `messages` array stopped. */
export interface MessagesMark {
  count: number;
  lastHash?: string;
}

export interface SessionRecord {
  id: string;
  startedAt?: number;
  lastActivity: number;
  cwd?: string;
  source?: string;
  /** The last substantive user request seen. */
  goal?: string;
  /** What the assistant was last doing. */
  focus?: string;
  /** Set by sleep (a clean end). */
  endedAt?: number;
  endReason?: string;
  /** The session whose start showed this one's recovery note (shown once). */
  recoveredBy?: string;
  checkpointAt?: number;
  /** The last checkpoint's text (redacted, capped), for the recovery note. */
  checkpointText?: string;
  /** Recovery scope (host and conversation kind); see session.start's `lineage`. */
  lineage?: string;
  transcript?: TranscriptMark;
  messages?: MessagesMark;
  /** Entries captured so far. */
  captured: number;
  /** Keys of the recent-memory entries given to the session at its starts (not repeated on resume). */
  injected?: string[];
}

export interface NamespaceState {
  version: number;
  /** Keyed by the client's session id: a null-prototype object, so "__proto__" or "constructor" is just an id. */
  sessions: Record<string, SessionRecord>;
  recentSaves: RecentSave[];
}

export const MAX_RECENT_TEXT = 2000;
/** Dedupe remembers saves for this long (dedupe.ts DEDUPE_WINDOW_MS), however many there are… */
const RECENT_WINDOW_MS = 30 * 60_000;
/** …up to this many (a safety bound on the state file: 20,000 × 2,000 chars at most). */
const MAX_RECENT = 20_000;
const SESSION_TTL_MS = 90 * 24 * 3600_000;
const MAX_SESSIONS = 2000;

export class StateStore {
  private readonly cache = new Map<string, NamespaceState>();
  private readonly journals = new Map<string, SavesJournal>();
  /** The sessions text last written per namespace: unchanged sessions are not rewritten. */
  private readonly written = new Map<string, string>();

  constructor(
    readonly dir: string,
    private readonly clock: () => number = Date.now,
  ) {}

  static forDataDir(dataDir: string, clock?: () => number): StateStore {
    return new StateStore(join(dataDir, "state"), clock);
  }

  file(namespace: string): string {
    return join(this.dir, `${namespace.replace(/[^A-Za-z0-9._-]/g, "_")}.json`);
  }

  private journal(namespace: string): SavesJournal {
    let j = this.journals.get(namespace);
    if (!j)
      this.journals.set(namespace, (j = new SavesJournal(this.file(namespace).replace(/\.json$/, ".saves.jsonl"))));
    return j;
  }

  /** The namespace's state (loaded once, then kept in memory; this process is its only writer). */
  get(namespace: string): NamespaceState {
    let s = this.cache.get(namespace);
    if (!s) {
      s = this.load(namespace);
      this.cache.set(namespace, s);
    }
    return s;
  }

  session(namespace: string, id: string): SessionRecord {
    const st = this.get(namespace);
    let rec = Object.hasOwn(st.sessions, id) ? st.sessions[id] : undefined;
    if (!rec) st.sessions[id] = rec = { id, lastActivity: this.clock(), captured: 0 };
    return rec;
  }

  /** Forgets every session of the namespace (lifecycle and capture watermarks); returns how many. */
  clearSessions(namespace: string): number {
    const st = this.get(namespace);
    const n = Object.keys(st.sessions).length;
    st.sessions = sessionMap([]);
    this.save(namespace);
    return n;
  }

  /**
   * Prunes and writes the namespace's state atomically. When the data dir is read-only or full, the
   * state stays in memory (this process is its only reader) and the error is returned instead of
   * thrown: a session or a write to the memory files must not fail over it. The next save tries again.
   */
  save(namespace: string): NodeJS.ErrnoException | null {
    const st = this.get(namespace);
    this.prune(st);
    const file = this.file(namespace);
    const tmp = `${file}.${process.pid}.tmp`;
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.journal(namespace).save(st.recentSaves);
      const text = JSON.stringify({ version: st.version, sessions: st.sessions, recentSaves: [] });
      if (this.written.get(namespace) === text) return null;
      const fd = openSync(tmp, "w", 0o600);
      try {
        writeSync(fd, text);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, file);
      this.written.set(namespace, text);
      return null;
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      // A data dir that cannot take the state file now: read-only or full (a recursive mkdir on a read-only filesystem says ENOENT).
      if (fsWriteFault(err.code) === null && err.code !== "ENOENT") throw e;
      try {
        rmSync(tmp, { force: true });
      } catch {
        // nothing to remove, or the directory refuses that too
      }
      return err;
    }
  }

  private prune(st: NamespaceState): void {
    const now = this.clock();
    // Replaced only when something expired: the dedupe index (dedupe.ts) follows the array's identity.
    const kept = st.recentSaves.filter((r) => now - r.at < RECENT_WINDOW_MS).slice(-MAX_RECENT);
    if (kept.length !== st.recentSaves.length) st.recentSaves = kept;
    let sessions = Object.values(st.sessions).filter((s) => now - s.lastActivity < SESSION_TTL_MS);
    if (sessions.length > MAX_SESSIONS)
      sessions = sessions.sort((a, b) => b.lastActivity - a.lastActivity).slice(0, MAX_SESSIONS);
    if (sessions.length !== Object.keys(st.sessions).length) st.sessions = sessionMap(sessions.map((s) => [s.id, s]));
  }

  private load(namespace: string): NamespaceState {
    const file = this.file(namespace);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT")
        return { ...empty(), recentSaves: this.journal(namespace).load() };
      throw e;
    }
    try {
      const raw = JSON.parse(text) as Partial<NamespaceState>;
      if (
        typeof raw !== "object" ||
        raw === null ||
        typeof raw.sessions !== "object" ||
        !Array.isArray(raw.recentSaves)
      )
        throw new Error("bad shape");
      const sessions = sessionMap(
        Object.entries(raw.sessions ?? {}).filter(([id, rec]) => isRecord(rec) && rec.id === id),
      );
      // Saves in the file itself come from before the journal; the next save moves them into it.
      const legacy = raw.recentSaves.filter(isRecord) as unknown as RecentSave[];
      return { version: STATE_VERSION, sessions, recentSaves: [...legacy, ...this.journal(namespace).load()] };
    } catch {
      // Keep the damaged file for inspection and start over (worst case: something is captured twice).
      try {
        renameSync(file, `${file}.corrupt-${this.clock()}`);
      } catch {
        // ignore
      }
      return empty();
    }
  }
}

function empty(): NamespaceState {
  return { version: STATE_VERSION, sessions: sessionMap([]), recentSaves: [] };
}

/** A null-prototype id → record object (JSON round-trips it as a plain object). */
function sessionMap(entries: Iterable<[string, SessionRecord]>): Record<string, SessionRecord> {
  const out = Object.create(null) as Record<string, SessionRecord>;
  for (const [id, rec] of entries) out[id] = rec;
  return out;
}

function isRecord(v: unknown): v is SessionRecord {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
