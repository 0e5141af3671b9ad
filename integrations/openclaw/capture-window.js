// @ts-check
/**
 * What a run's capture sends to cortexd, from agent_end's messages (newest last):
 * - user and assistant text (each part capped), images as markers without their data;
 * - tool results, where an agent's real work lives: cleaned, capped (TOOL_RESULT_CHARS each,
 *   TOOL_PART_CHARS per turn) and put at the head of the turn's final assistant message as
 *   "[tool <name>: <result>]", so cortexd's one-line turn entry keeps them;
 * - with `filter` (captureFilter, on by default): no heartbeats (HEARTBEAT_OK, NO_REPLY, the
 *   heartbeat prompt), no terminal artefacts (ANSI escapes, spinner and box-drawing lines), no
 *   token counters;
 * - at most `maxBytes` (captureMaxPayloadBytes) of JSON, the oldest messages trimmed first.
 */

export const MAX_CAPTURE_MESSAGES = 60;
export const DEFAULT_MAX_BYTES = 256 * 1024;
const MAX_PART_CHARS = 20_000;
export const TOOL_RESULT_CHARS = 200;
export const TOOL_PART_CHARS = 320;

// eslint-disable-next-line no-control-regex -- terminal escapes are what this removes
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;
/** A line that is only spinner/box-drawing/progress glyphs. */
const TUI_LINE = /^[\s\u2500-\u259f\u2800-\u28ff\u25a0-\u25ff|+=*·•.\-_>]+$/u;
/** "tokens: 1,234 / 200k", "↑ 1.2k ↓ 345 tokens", "ctx 45%" */
const TOKEN_LINE =
  /^\s*(?:(?:tokens?|ctx|context|usage)\b[\s:=]*[\d.,]+\s*[km]?(?:\s*\/\s*[\d.,]+\s*[km]?)?\s*(?:tokens?|%)?|[↑↓]\s*[\d.,]+\s*[km]?(?:\s*[↑↓]\s*[\d.,]+\s*[km]?)*(?:\s*tokens?)?)\s*$/i;
const HEARTBEAT_TEXT = /^(?:HEARTBEAT_OK|NO_REPLY)\b/;
const HEARTBEAT_PROMPT = /^Read HEARTBEAT\.md\b/;

/** Context the gateway adds to a prompt for the model (not what the user wrote). */
const GATEWAY_CONTEXT = /<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>[\s\S]*?(?:<<<END_OPENCLAW_INTERNAL_CONTEXT>>>|$)/g;

/** Removes terminal artefacts, token counters and the gateway's own context from a text (captureFilter). */
export function filterText(/** @type {string} */ text) {
  let t = text.includes("\u001b") ? text.replace(ANSI, "") : text;
  if (t.includes("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>")) t = t.replace(GATEWAY_CONTEXT, " ");
  return t
    .split("\n")
    .filter((l) => !(l.trim() && (TUI_LINE.test(l.trim()) || TOKEN_LINE.test(l))))
    .join("\n")
    .trim();
}

/** @param {unknown} content @returns {string} */
function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p) => (typeof p === "string" ? p : p && typeof p === "object" && typeof p.text === "string" ? p.text : ""))
    .filter(Boolean)
    .join("\n");
}

/** @param {string} s @param {number} max */
function cut(s, max) {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}

/** Keys whose string values are a tool result's substance (not ids, types or sources). */
const RESULT_KEYS = new Set([
  "text",
  "snippet",
  "content",
  "output",
  "stdout",
  "stderr",
  "message",
  "error",
  "summary",
  "result",
]);

/**
 * The readable part of a tool result: JSON (a tool's own, or the tool-search bridge's envelope
 * around it) is reduced to the string values under RESULT_KEYS, nested JSON strings unwrapped;
 * plain text stays as it is. Also names the real tool behind the bridge.
 * @param {string} raw
 * @returns {{ text: string, tool?: string }}
 */
export function toolResultText(raw) {
  /** @type {string[]} */
  const parts = [];
  /** @type {string | undefined} */
  let tool;
  const visit = (/** @type {unknown} */ v, /** @type {string} */ key, /** @type {number} */ depth) => {
    if (parts.join(" ").length > 2000 || depth > 16) return;
    if (typeof v === "string") {
      const t = v.trim();
      if ((t.startsWith("{") || t.startsWith("[")) && depth < 16) {
        try {
          return visit(JSON.parse(t), key, depth + 1);
        } catch {
          // not JSON after all
        }
      }
      if (RESULT_KEYS.has(key) && t) parts.push(t);
      return;
    }
    if (Array.isArray(v)) return v.forEach((x) => visit(x, key, depth + 1));
    if (v && typeof v === "object") {
      const o = /** @type {Record<string, unknown>} */ (v);
      if (!tool && o.tool && typeof o.tool === "object" && typeof (/** @type {any} */ (o.tool).name) === "string")
        tool = /** @type {any} */ (o.tool).name;
      for (const [k, x] of Object.entries(o))
        if (k !== "tool") visit(x, RESULT_KEYS.has(k) ? k : key === "" ? "" : k, depth + 1);
    }
  };
  const t = raw.trim();
  if (!(t.startsWith("{") || t.startsWith("["))) return { text: raw };
  visit(t, "text", 0);
  return { text: parts.length ? parts.join(" ") : raw, ...(tool ? { tool } : {}) };
}

/** A tool result message (OpenClaw's `toolResult`, OpenAI's `tool`), as { name, text }, else null. */
function toolResultOf(/** @type {any} */ msg) {
  if (msg.role !== "toolResult" && msg.role !== "tool") return null;
  const r = toolResultText(textOf(msg.content).slice(0, 100_000));
  const name = String(r.tool ?? msg.toolName ?? msg.name ?? msg.tool_name ?? "").slice(0, 64);
  return { name, text: r.text, error: msg.isError === true };
}

/**
 * @param {unknown} messages agent_end's event.messages
 * @param {{ maxBytes?: number, filter?: boolean }} [opts]
 * @returns {unknown[]}
 */
export function captureWindow(messages, opts = {}) {
  if (!Array.isArray(messages)) return [];
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const filter = opts.filter !== false;
  const clean = (/** @type {string} */ s) => (filter ? filterText(s) : s).slice(0, MAX_PART_CHARS);
  /** @type {{ role: string, content: any[], timestamp?: unknown }[]} */
  const out = [];
  /** Tool results since the last user message, waiting for the turn's final assistant message. */
  /** @type {string[]} */
  let tools = [];
  /** Where the current turn's latest assistant message sits in `out`. */
  let lastAssistant = -1;
  const attachTools = () => {
    const target = lastAssistant >= 0 ? out[lastAssistant] : undefined;
    if (target && tools.length > 0) {
      let part = "";
      for (const t of tools) if ((part + t).length <= TOOL_PART_CHARS) part += `${part ? " " : ""}${t}`;
      if (part) target.content.unshift({ type: "text", text: `${part} ` });
    }
    tools = [];
    lastAssistant = -1;
  };
  for (const m of messages.slice(-MAX_CAPTURE_MESSAGES * 2)) {
    const msg =
      m && typeof m === "object" && "message" in m && m.message && typeof m.message === "object" ? m.message : m;
    if (!msg || typeof msg !== "object") continue;
    const tr = toolResultOf(msg);
    if (tr) {
      const text = cut(clean(tr.text), TOOL_RESULT_CHARS);
      if (text) tools.push(`[tool${tr.name ? ` ${tr.name}` : ""}${tr.error ? " failed" : ""}: ${text}]`);
      continue;
    }
    const { role, content, timestamp } = /** @type {{ role?: unknown, content?: unknown, timestamp?: unknown }} */ (
      msg
    );
    if (role !== "user" && role !== "assistant") continue;
    /** @type {any[]} */
    let parts;
    if (typeof content === "string") parts = [{ type: "text", text: clean(content) }];
    else if (Array.isArray(content))
      parts = content
        .map((p) => {
          if (typeof p === "string") return { type: "text", text: clean(p) };
          if (!p || typeof p !== "object") return null;
          if ((p.type === "text" || p.type === "input_text" || p.type === "output_text") && typeof p.text === "string")
            return { type: "text", text: clean(p.text) };
          if (p.type === "image" || p.type === "image_url" || p.type === "input_image") return { type: "image" };
          return null;
        })
        .filter(Boolean);
    else continue;
    parts = parts.filter((p) => p.type !== "text" || p.text);
    if (filter) {
      const all = parts
        .map((p) => p.text ?? "")
        .join(" ")
        .trim();
      if (HEARTBEAT_TEXT.test(all) || (role === "user" && HEARTBEAT_PROMPT.test(all))) continue;
    }
    if (role === "user") attachTools();
    if (parts.length === 0) continue;
    out.push({ role, content: parts, ...(timestamp !== undefined ? { timestamp } : {}) });
    if (role === "assistant") lastAssistant = out.length - 1;
  }
  attachTools();
  let window = out.slice(-MAX_CAPTURE_MESSAGES);
  while (window.length > 1 && Buffer.byteLength(JSON.stringify(window)) > maxBytes) window = window.slice(1);
  return window;
}
