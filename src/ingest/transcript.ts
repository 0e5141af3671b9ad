import type { Chunk, ChunkingOptions, TranscriptStats } from "./types.js";
import { countTokens, sliceByTokens } from "./tokens.js";
import { INJECTED_BLOCK_TAGS, blocksPattern } from "./injected-blocks.js";

/** One kept user/assistant message of a JSONL session transcript. */
export interface TranscriptMessage {
  role: "user" | "assistant";
  text: string;
  /** 1-based JSONL line. */
  line: number;
  /** Epoch milliseconds. */
  timestamp?: number;
}

/**
 * Parses a JSONL transcript into the user/assistant text worth indexing.
 *
 * Understands OpenClaw lines (`{"type":"message","message":{role, content}}`), flat
 * `{role, content}` lines and Claude Code lines (`{"type":"user"|"assistant","message":…}`).
 * Other record types are ignored silently; bad JSON and non-objects count as malformed.
 * Drops system/developer/tool messages, tool-only records, thinking, heartbeat and cron
 * prompts, HEARTBEAT_OK acks, NO_REPLY turns and previously recalled memory blocks; base64
 * images become "[image]". Never throws.
 */
export function parseTranscript(
  jsonl: string,
  opts: { firstLine?: number } = {},
): { messages: TranscriptMessage[]; stats: TranscriptStats } {
  const stats: TranscriptStats = { malformed: 0, dropped: 0, kept: 0 };
  const messages: TranscriptMessage[] = [];
  const firstLine = opts.firstLine ?? 1;
  let lineNo = firstLine - 1;
  let pos = 0;
  while (pos < jsonl.length) {
    let end = jsonl.indexOf("\n", pos);
    if (end < 0) end = jsonl.length;
    const raw = jsonl.slice(pos, end).trim();
    pos = end + 1;
    lineNo++;
    if (raw === "") continue;

    let record: unknown;
    try {
      record = JSON.parse(raw);
    } catch {
      stats.malformed++;
      continue;
    }
    if (!isObject(record)) {
      stats.malformed++;
      continue;
    }
    const found = extractMessage(record);
    if (!found) continue; // header, model change, custom event, ...
    const message = toMessage(found, lineNo);
    if (message) messages.push(message);
    else stats.dropped++;
  }
  stats.kept = messages.length;
  return { messages, stats };
}

type Json = Record<string, unknown>;

interface RawMessage {
  role: unknown;
  content: unknown;
  timestamp: unknown;
  meta: boolean;
}

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Finds the message inside a record of any known format; undefined for other records. */
function extractMessage(r: Json): RawMessage | undefined {
  const inner = r.message;
  if ((r.type === "message" || r.type === "user" || r.type === "assistant") && isObject(inner)) {
    return {
      role: inner.role ?? r.type,
      content: inner.content,
      timestamp: r.timestamp ?? inner.timestamp,
      meta: r.isMeta === true,
    };
  }
  if (r.type === undefined || r.type === "message") {
    if (typeof r.role === "string" && "content" in r) {
      return { role: r.role, content: r.content, timestamp: r.timestamp, meta: false };
    }
  }
  return undefined;
}

/** Cleans one raw message; undefined when it is dropped on purpose. */
function toMessage(raw: RawMessage, line: number): TranscriptMessage | undefined {
  if (raw.meta) return undefined;
  if (raw.role !== "user" && raw.role !== "assistant") return undefined;
  const role = raw.role;
  const text = cleanText(contentText(raw.content));
  if (text === "" || isOnlyImages(text)) return undefined;
  if (role === "user" && (isHeartbeatPrompt(text) || isCronPrompt(text))) return undefined;
  if (isAck(text, "HEARTBEAT_OK") || isAck(text, "NO_REPLY")) return undefined;
  const message: TranscriptMessage = { role, text, line };
  const timestamp = toEpochMs(raw.timestamp);
  if (timestamp !== undefined) message.timestamp = timestamp;
  return message;
}

/** Text parts of a message; images become "[image]"; tool calls/results and thinking vanish. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const part of content) {
    if (typeof part === "string") parts.push(part);
    else if (isObject(part)) {
      const type = part.type;
      if ((type === "text" || type === "input_text" || type === "output_text") && typeof part.text === "string") {
        parts.push(part.text);
      } else if (type === "image" || type === "image_url" || type === "input_image") {
        parts.push(IMAGE);
      }
      // toolCall, toolResult, tool_use, tool_result, thinking, redacted_thinking: dropped.
    }
  }
  return parts.join("\n");
}

const IMAGE = "[image]";
const MEMORY_BLOCK = blocksPattern(INJECTED_BLOCK_TAGS);
const DATA_IMAGE = /data:image\/[\w.+-]+;base64,[A-Za-z0-9+/=]*/gi;

/** Removes recalled memory blocks (an unclosed block runs to the end) and inline base64 images. */
function cleanText(text: string): string {
  let t = text;
  if (t.includes("<")) t = t.replace(MEMORY_BLOCK, "");
  if (t.includes("data:image/")) t = t.replace(DATA_IMAGE, IMAGE);
  return t.replace(/\n{3,}/g, "\n\n").trim();
}

function isOnlyImages(text: string): boolean {
  return text.startsWith(IMAGE) && text.split(IMAGE).every((rest) => rest.trim() === "");
}

/** OpenClaw's default heartbeat prompt (or a custom one) asks for a HEARTBEAT_OK reply. */
function isHeartbeatPrompt(text: string): boolean {
  if (!text.includes("HEARTBEAT_OK")) return false;
  return text.includes("HEARTBEAT.md") || /\breply\b[^\n]{0,40}HEARTBEAT_OK/i.test(text);
}

/** OpenClaw cron turns start with "[cron:<jobId> <name>]". */
function isCronPrompt(text: string): boolean {
  return text.startsWith("[cron:");
}

/**
 * An acknowledgement token (HEARTBEAT_OK, NO_REPLY) at the start or end of the text with
 * little else around it — OpenClaw discards such replies (≤ 300 other chars).
 */
function isAck(text: string, token: string): boolean {
  if (!text.includes(token)) return false;
  const bare = text
    .replace(/[*`"']/g, "")
    .trim()
    .replace(/[.!]+$/, "");
  if (bare === token) return true;
  if (!bare.startsWith(token) && !bare.endsWith(token)) return false;
  return bare.split(token).join("").trim().length <= ACK_MAX_CHARS;
}

const ACK_MAX_CHARS = 300;

/** ISO string or epoch seconds/ms (numbers below 1e11 are seconds) → epoch ms. */
export function toEpochMs(value: unknown): number | undefined {
  let v = value;
  if (typeof v === "string") {
    const s = v.trim();
    if (s === "") return undefined;
    if (/^\d+(\.\d+)?$/.test(s)) v = Number(s);
    else {
      const ms = Date.parse(s);
      return Number.isFinite(ms) ? ms : undefined;
    }
  }
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) return undefined;
  return Math.round(v < 1e11 ? v * 1000 : v);
}

/** One packable unit: a whole rendered message, or one piece of a message over budget. */
interface Unit {
  text: string;
  tokens: number;
  line: number;
  timestamp?: number;
  /** Piece of a split message: always a chunk of its own, never overlapped. */
  piece: boolean;
}

/**
 * Chunks messages into "User: …" / "Assistant: …" blocks separated by blank lines.
 *
 * Whole messages are packed greedily up to maxTokens; the next chunk repeats the last
 * message(s) of the previous one up to overlapTokens. A message over maxTokens is cut at
 * line / sentence boundaries into pieces that each form their own chunk. Each chunk depends
 * only on the messages from its first one onwards, so appending messages changes at most
 * the last chunk, and re-chunking from the first message of a stored chunk reproduces it.
 */
export function chunkTranscript(messages: readonly TranscriptMessage[], opts: ChunkingOptions): Chunk[] {
  const max = Math.max(1, Math.floor(opts.maxTokens));
  const overlap = Math.max(0, Math.min(Math.floor(opts.overlapTokens), Math.floor(max / 2)));
  const units = toUnits(messages, max);
  const chunks: Chunk[] = [];
  let s = 0;
  while (s < units.length) {
    let e = s + 1; // units [s, e) form the chunk
    if (!units[s]!.piece) {
      let sum = units[s]!.tokens;
      while (e < units.length && !units[e]!.piece && sum + units[e]!.tokens <= max) {
        sum += units[e]!.tokens;
        e++;
      }
    }
    chunks.push(makeChunk(units, s, e));
    if (e >= units.length) break;

    // Overlap: whole trailing messages ≤ overlap tokens, leaving room for the next message.
    let q = e;
    const next = units[e]!;
    if (!next.piece && !units[e - 1]!.piece) {
      let sum = 0;
      while (q - 1 > s) {
        const t = sum + units[q - 1]!.tokens;
        if (t > overlap || t + next.tokens > max) break;
        sum = t;
        q--;
      }
    }
    s = q;
  }
  return chunks;
}

function makeChunk(units: readonly Unit[], s: number, e: number): Chunk {
  const parts: string[] = [];
  let timestamp: number | undefined;
  for (let i = s; i < e; i++) {
    const u = units[i]!;
    parts.push(u.text);
    if (u.timestamp !== undefined && (timestamp === undefined || u.timestamp > timestamp)) timestamp = u.timestamp;
  }
  const chunk: Chunk = { text: parts.join("\n\n"), startLine: units[s]!.line, endLine: units[e - 1]!.line };
  if (timestamp !== undefined) chunk.timestamp = timestamp;
  return chunk;
}

/** Renders messages; messages over the budget become several labelled pieces. */
function toUnits(messages: readonly TranscriptMessage[], max: number): Unit[] {
  const units: Unit[] = [];
  for (const m of messages) {
    const label = m.role === "user" ? "User: " : "Assistant: ";
    // label + text counts at most count(label) + count(text): an upper bound that avoids
    // scanning a concatenated (cons) string.
    const labelTokens = countTokens(label);
    const tokens = labelTokens + countTokens(m.text);
    if (tokens <= max) {
      units.push(unit(label + m.text, tokens, m, false));
      continue;
    }
    for (const piece of splitMessage(m.text, Math.max(1, max - labelTokens))) {
      units.push(unit(label + piece, labelTokens + countTokens(piece), m, true));
    }
  }
  return units;
}

function unit(text: string, tokens: number, m: TranscriptMessage, piece: boolean): Unit {
  const u: Unit = { text, tokens, line: m.line, piece };
  if (m.timestamp !== undefined) u.timestamp = m.timestamp;
  return u;
}

/** Splits text into pieces ≤ budget tokens at line, then sentence, then arbitrary boundaries. */
function splitMessage(text: string, budget: number): string[] {
  // Segments with the separator that joins them to the previous one: "\n" between lines,
  // "" between sentences or slices of one line (they keep their own spacing).
  const segments: Array<{ text: string; sep: string; tokens: number }> = [];
  for (const line of text.split("\n")) {
    const tokens = countTokens(line);
    if (tokens <= budget) {
      segments.push({ text: line, sep: "\n", tokens });
      continue;
    }
    let sep = "\n";
    for (const sentence of splitSentences(line)) {
      const parts = countTokens(sentence) <= budget ? [sentence] : sliceByTokens(sentence, budget);
      for (const part of parts) {
        segments.push({ text: part, sep, tokens: countTokens(part) });
        sep = "";
      }
    }
  }
  // Greedy packing. Summing segment estimates over-counts (never under-counts) the joined
  // text, so every piece stays within budget, and the packing stays linear.
  const pieces: string[] = [];
  let current: string[] = [];
  let currentTokens = 0;
  for (const seg of segments) {
    if (current.length > 0 && currentTokens + seg.tokens > budget) {
      pieces.push(current.join(""));
      current = [];
      currentTokens = 0;
    }
    current.push(current.length === 0 ? seg.text : seg.sep + seg.text);
    currentTokens += seg.tokens;
  }
  if (current.length > 0) pieces.push(current.join(""));
  return pieces.map((p) => p.trim()).filter((p) => p !== "");
}

/** Sentence pieces of one line, each keeping its trailing whitespace. */
function splitSentences(line: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    const cjkStop = c === "。" || c === "！" || c === "？";
    const stop = cjkStop || ((c === "." || c === "!" || c === "?") && /\s/.test(line[i + 1] ?? ""));
    if (!stop) continue;
    let end = i + 1;
    while (end < line.length && /\s/.test(line[end]!)) end++;
    out.push(line.slice(start, end));
    start = end;
    i = end - 1;
  }
  if (start < line.length) out.push(line.slice(start));
  return out;
}
