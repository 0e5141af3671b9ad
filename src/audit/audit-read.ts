import { readRegularTextSync } from "../util/regular-file.js";
import { join } from "node:path";
import { AUDIT_FILE, type AuditEntry } from "./audit-log.js";

/** Bytes read of one audit file at most (a rotated file is far smaller). */
const AUDIT_READ_MAX = 256 * 1024 * 1024;

export interface AuditQuery {
  /** Only this session's answers. */
  session?: string;
  /** Only answers at or after this time (ms since epoch). */
  since?: number;
  /** The newest this-many (default 20). */
  limit?: number;
}

/** Files read at most (the current one and the rotated ones, newest first) and bytes of each. */
const MAX_FILES = 21;

/**
 * The audit entries matching a query, oldest first (the newest `limit`): the rotated files, then the
 * current one. Lines that are not entries (a torn write) are skipped.
 */
export function readAudit(dir: string, q: AuditQuery = {}): AuditEntry[] {
  const limit = q.limit ?? 20;
  const out: AuditEntry[] = [];
  const base = join(dir, AUDIT_FILE);
  // Newest first: audit.jsonl, audit.jsonl.1, …; stop once enough entries are found.
  for (let i = 0; i < MAX_FILES && out.length < limit; i++) {
    let text: string;
    try {
      text = readRegularTextSync(i === 0 ? base : `${base}.${i}`, { maxBytes: AUDIT_READ_MAX });
    } catch {
      if (i === 0) continue;
      break;
    }
    const lines = text.split("\n");
    for (let j = lines.length - 1; j >= 0 && out.length < limit; j--) {
      const e = parse(lines[j]!);
      if (!e) continue;
      if (q.session !== undefined && e.session !== q.session) continue;
      if (q.since !== undefined && Date.parse(e.at) < q.since) continue;
      out.push(e);
    }
  }
  return out.reverse();
}

function parse(line: string): AuditEntry | null {
  if (!line.trim()) return null;
  try {
    const v = JSON.parse(line) as unknown;
    if (!v || typeof v !== "object" || typeof (v as AuditEntry).at !== "string") return null;
    const e = v as AuditEntry;
    return Array.isArray(e.memories) ? e : null;
  } catch {
    return null;
  }
}

/** "30m", "2h", "7d" or an ISO date/time → ms since epoch; undefined when it is neither. */
export function parseSince(s: string, now: number = Date.now()): number | undefined {
  const m = /^(\d+)\s*(s|m|h|d)$/i.exec(s.trim());
  if (m) {
    const unit = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3 }[m[2]!.toLowerCase() as "s" | "m" | "h" | "d"];
    return now - Number(m[1]) * unit;
  }
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : t;
}

/** One line per answer, for people: time, client, session, scope, query and what went out. */
export function formatAuditEntry(e: AuditEntry): string {
  const who = [e.client ?? "?", e.session ? `session ${e.session}` : ""].filter(Boolean).join(" ");
  const what = e.memories.map((m) => `${m.path}:${m.startLine}-${m.endLine} (${m.visibility})`).join(", ");
  const q = e.query !== undefined ? JSON.stringify(e.query) : `#${e.queryHash.slice(0, 12)}`;
  return `${e.at} ${e.method.replace("memory.", "")} ${who} scope ${e.scope} ${q}: ${e.memories.length} memor${
    e.memories.length === 1 ? "y" : "ies"
  }, ${e.bytes} bytes${what ? ` — ${what}` : ""}`;
}
