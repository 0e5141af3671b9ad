import { units } from "../ingest/units.js";
import type { NewStatement, PendingChunk } from "../index/repos/facts-repo.js";
import { readNames, readStatement } from "./mentions.js";

/** A statement is one short entry or message: longer text is a story, not a fact that changes. */
const MAX_WORDS = 40;
const ENTRY = /^\s*(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?/;
const CLOCK = /^(\d{1,2}):(\d{2})\s+/;
const ENTRY_DATE = /^\[(\d{4}-\d{2}-\d{2})\]\s*/;
const USER = /^User:\s+/;

/** Two white space characters in a row, or one that is no plain space. */
const SPACE_RUN = /\s\s|[^\S ]/;

/** text.split(" ").length, without the array. */
function wordCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf(" "); i >= 0; i = text.indexOf(" ", i + 1)) n++;
  return n;
}

/** Where a statement's time comes from when its text has none (see `statementsOf`). */
export interface TimeSource {
  /** When an undated curated line was first seen (ms; 0: before every dated statement). */
  curatedSeen: (path: string, text: string) => number;
}

/**
 * What one chunk says: its statements, each with its time, and the entities it names (names,
 * identifiers, "the …" phrases; key → as first written). Each unit is read once. A statement's
 * time is chosen in this order:
 * 1. a date the entry opens with ("- [2026-10-18] …"), at noon UTC, or with the entry's clock time;
 * 2. a daily log's date, with the entry's "HH:MM" when it opens with one (as UTC);
 * 3. a transcript chunk's first message time (its messages are minutes apart);
 * 4. an undated curated line (MEMORY.md, USER.md, notes): the moment the indexer first saw the line
 *    — its history as cortexd watched it, kept across syncs; a line present when the workspace was
 *    first indexed counts as older than every dated statement (null), and so does one first met
 *    when the index is read again by newer rules (sync-facts.ts: its history is unknown).
 * Statements are markdown list entries and user messages of at most 40 words.
 */
export function readChunk(
  chunk: PendingChunk,
  time: TimeSource,
): { statements: NewStatement[]; entities: Map<string, string> } {
  const out: NewStatement[] = [];
  const entities = new Map<string, string>();
  const transcript = chunk.cls === "transcript";
  for (const u of units(chunk.text)) {
    let text = u.text;
    const user = USER.test(text);
    const entry = !transcript && ENTRY.test(text);
    if ((transcript ? !user : !entry) || text.length > MAX_WORDS * 20) {
      // No statement: its names and identifiers only (a bounded, cheaper read).
      for (const [key, name] of readNames(text.slice(0, 600))) if (!entities.has(key)) entities.set(key, name);
      continue;
    }
    text = text
      .replace(USER, "")
      .replace(/^Assistant:\s+/, "")
      .replace(ENTRY, "");
    const dated = ENTRY_DATE.exec(text);
    if (dated) text = text.slice(dated[0].length);
    const clock = CLOCK.exec(text);
    if (clock) text = text.slice(clock[0].length);
    // Runs of white space as one space (only when there is a run or another space than " ").
    text = (SPACE_RUN.test(text) ? text.replace(/\s+/g, " ") : text).trim();
    const words = wordCount(text);
    if (words < 2 || words > MAX_WORDS) {
      for (const [key, name] of readNames(text)) if (!entities.has(key)) entities.set(key, name);
      continue;
    }
    const reading = readStatement(text);
    for (const m of reading.mentions)
      if (
        (m.kind === "name" || m.kind === "identifier" || m.kind === "phrase") &&
        m.key.length <= 64 &&
        !entities.has(m.key)
      )
        entities.set(m.key, m.kind === "phrase" ? m.text.replace(/^the /, "") : m.text);
    let at: number | null;
    const hhmm = clock ? `${clock[1]!.padStart(2, "0")}:${clock[2]}` : "12:00";
    const day = dated?.[1] ?? (chunk.cls === "daily" ? chunk.date : null);
    if (day) at = Date.parse(`${day}T${hhmm}:00Z`);
    else if (transcript) at = chunk.ts;
    else {
      // Recorded for every curated entry, a statement or not: a later reader may read it as one.
      const seen = time.curatedSeen(chunk.path, text);
      at = seen === 0 ? null : seen;
    }
    if (!reading.mentions.some((m) => m.kind === "value" || m.kind === "name")) continue;
    if (at !== null && Number.isNaN(at)) at = null;
    out.push({ chunkId: chunk.id, line: chunk.startLine + u.line, at, text, reading });
  }
  return { statements: out, entities };
}
