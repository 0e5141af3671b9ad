import { createHash } from "node:crypto";
import { INJECTED_BLOCK_TAGS, blocksPattern } from "../ingest/injected-blocks.js";
import { sessionVisibility } from "../visibility/visibility.js";
import type { TranscriptMessage } from "../ingest/transcript.js";
import { formatEntry, localDate, localTime } from "../memory-files/entry.js";
import { redactSecrets } from "../memory-files/redact.js";

/**
 * Deterministic capture (no model): a finished agent turn becomes one daily-log bullet
 *   - [session 1a2b3c4d 14:05] User: <request> — Assistant: <final answer>
 * Only substantive turns are kept (the Cortex rule: a user and an assistant message, more than 50
 * characters between them; acknowledgements like "ok"/"thanks" with a short reply are dropped).
 * Tool calls/results, thinking, images, heartbeats and recalled-memory blocks never get here:
 * parseTranscript drops them, and cleanCaptureText strips the agent-harness tags it leaves.
 */

export const MAX_USER_CHARS = 400;
export const MAX_ASSISTANT_CHARS = 600;
export const MIN_TURN_CHARS = 50;
export const SUMMARY_CHARS = 300;

export interface Turn {
  user: TranscriptMessage[];
  assistant: TranscriptMessage[];
}

/**
 * Groups messages into turns (user message(s) then the assistant's replies). A trailing turn
 * with no assistant reply yet is incomplete: `complete` is the number of messages in complete
 * turns, so a watermark never passes a question whose answer has not arrived.
 */
export function groupTurns(messages: readonly TranscriptMessage[]): { turns: Turn[]; complete: number } {
  const turns: Turn[] = [];
  let cur: Turn | null = null;
  let complete = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === "user") {
      if (!cur || cur.assistant.length > 0) {
        if (cur) complete = i;
        cur = { user: [], assistant: [] };
        turns.push(cur);
      }
      cur.user.push(m);
    } else {
      if (!cur) {
        cur = { user: [], assistant: [] };
        turns.push(cur);
      }
      cur.assistant.push(m);
    }
  }
  if (cur && cur.assistant.length > 0) complete = messages.length;
  else if (cur) turns.pop(); // incomplete: left for the next capture
  return { turns, complete };
}

/** Claude Code's harness blocks and the injected memory blocks: not what was said. */
const HARNESS_BLOCKS = blocksPattern([
  "system-reminder",
  "local-command-stdout",
  "local-command-stderr",
  "command-message",
  "command-args",
  "user-prompt-submit-hook",
  ...INJECTED_BLOCK_TAGS,
]);
const HARNESS_TAGS = /<\/?(command-name)\b[^>]*>/gi;

/** One line of plain text: harness blocks removed, whitespace collapsed. */
export function cleanCaptureText(text: string): string {
  let t = text;
  if (t.includes("<")) t = t.replace(HARNESS_BLOCKS, " ").replace(HARNESS_TAGS, "");
  if (t.includes("[image]")) t = t.replace(/\[image\]/g, " "); // images are not memories
  return t.replace(/\s+/g, " ").trim();
}

/** Cuts at a word boundary near max, adding "…". */
export function cap(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const sp = cut.lastIndexOf(" ");
  return `${(sp > max * 0.6 ? cut.slice(0, sp) : cut).trimEnd()}…`;
}

const TRIVIAL =
  /^(?:ok(?:ay)?|k|kk|thanks?(?: you)?(?: so much)?|thx|ty|yes|yep|yeah|yup|no|nope|sure|great|cool|nice|perfect|awesome|got it|lgtm|done|good|fine|continue|go on|go ahead|proceed|next|retry|again|hi|hello|hey)(?:[\s,.!?]+(?:ok(?:ay)?|thanks?|thank you|great|cool|nice|perfect|go ahead|continue))*[\s.!?👍🙏]*$/iu;

export function isTrivial(userText: string): boolean {
  return TRIVIAL.test(userText) || /^\/\S+$/.test(userText);
}

export interface TurnEntry {
  lines: string[];
  /** Redacted content compared for dedupe (without the session/time prefix). */
  dedupeText: string;
  /** The request alone (a turn repeats another only if its request does too). */
  dedupeLead: string;
  /** Local date of the turn (its daily log). */
  date: string;
  goal: string;
  focus: string;
  redactions: number;
}

/** The bullet for a turn, or a reason it is skipped. */
export function turnEntry(
  turn: Turn,
  session: string,
  now: number,
): TurnEntry | { skip: "trivial" | "no-user" | "no-assistant" | "short" } {
  // Slash-command records (<command-name>…) are the harness talking, not the user asking.
  const user = cleanCaptureText(
    turn.user
      .filter((m) => !m.text.includes("<command-name>"))
      .map((m) => m.text)
      .join(" "),
  );
  const assistantTexts = turn.assistant.map((m) => cleanCaptureText(m.text)).filter((t) => t !== "");
  if (!user) return { skip: "no-user" };
  if (assistantTexts.length === 0) return { skip: "no-assistant" };
  // The final message is the answer; a very short one (e.g. "Done.") borrows from the one before.
  const last = assistantTexts[assistantTexts.length - 1]!;
  const prev = last.length < 80 && assistantTexts.length > 1 ? assistantTexts[assistantTexts.length - 2]! : undefined;
  const assistantLength = last.length + (prev !== undefined ? Math.min(prev.length, MAX_ASSISTANT_CHARS / 2) + 3 : 0);
  if (user.length + assistantLength <= MIN_TURN_CHARS) return { skip: "short" };
  if (isTrivial(user) && assistantLength < 200) return { skip: "trivial" };
  // Redact before capping: a secret cut in half by the cap would no longer be recognised.
  const rUser = redactSecrets(user);
  const rLast = redactSecrets(last);
  const rPrev = prev !== undefined ? redactSecrets(prev) : undefined;
  const assistant = rPrev ? `${cap(rPrev.text, MAX_ASSISTANT_CHARS / 2)} … ${rLast.text}` : rLast.text;
  const ru = { text: cap(rUser.text, MAX_USER_CHARS), count: rUser.count };
  const ra = { text: cap(assistant, MAX_ASSISTANT_CHARS), count: rLast.count + (rPrev?.count ?? 0) };
  const ts =
    [...turn.user, ...turn.assistant].reduce<number | undefined>(
      (t, m) => (m.timestamp !== undefined && (t === undefined || m.timestamp > t) ? m.timestamp : t),
      undefined,
    ) ?? now;
  const text = `[session ${shortSession(session)} ${localTime(ts)}] User: ${ru.text} — Assistant: ${ra.text}`;
  return {
    lines: formatEntry(text, { visibility: sessionVisibility(session) }),
    dedupeText: `${ru.text} ${ra.text}`,
    dedupeLead: ru.text,
    date: localDate(ts),
    goal: cap(ru.text, SUMMARY_CHARS),
    focus: cap(ra.text, SUMMARY_CHARS),
    redactions: ru.count + ra.count,
  };
}

/** A short, readable session label: a UUID's first 8 hex digits, a short key as is. */
export function shortSession(id: string): string {
  const clean = id.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "") || "session";
  if (/^[0-9a-f]{8}-?[0-9a-f]{4}/i.test(clean)) return clean.slice(0, 8).toLowerCase();
  if (clean.length <= 16) return clean;
  return `${clean.slice(0, 8)}-${createHash("sha256").update(id).digest("hex").slice(0, 4)}`;
}

/** Identity of a message for watermark realignment. */
export function messageHash(m: Pick<TranscriptMessage, "role" | "text">): string {
  return createHash("sha256").update(`${m.role}\0${m.text}`).digest("hex").slice(0, 16);
}
