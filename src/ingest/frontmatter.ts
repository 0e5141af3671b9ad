/**
 * YAML frontmatter (a first line `---`, `key: value` lines, a closing `---`) is metadata, not text to
 * match: Claude Code's auto-memory topic files carry `name`, `description` and `type` (top level or
 * under `metadata:`, as the CLI 2.1.328 writes it). The block is replaced, line for line, by blank
 * lines and one header line in place of the closing `---`, so every later line keeps its number:
 *
 *   [feedback] tabs-in-go — the user wants tabs in Go files <!-- importance: 7 -->
 *
 * `type` is shown in brackets; `feedback` and `user` memories are preferences about how to work and
 * get importance 7 (the importance stage ranks them above plain notes). Other keys are dropped.
 * Only the flat `key: value` form and one nested level are read (what the CLI writes); anything
 * else in the block is dropped with it.
 */

export interface Frontmatter {
  name?: string;
  description?: string;
  type?: string;
  /** Lines the block spans, closing `---` included. */
  lines: number;
}

/** Memory types that state how the user wants work done (ranked as preferences). */
export const PREFERENCE_TYPES: ReadonlySet<string> = new Set(["feedback", "user"]);
export const PREFERENCE_IMPORTANCE = 7;

const MAX_LINES = 60;

function unquote(v: string): string {
  const t = v.trim();
  if (t.length >= 2 && ((t[0] === '"' && t.endsWith('"')) || (t[0] === "'" && t.endsWith("'")))) return t.slice(1, -1);
  return t;
}

/** The frontmatter at the start of a text, or null when it has none (or it is never closed). */
export function parseFrontmatter(text: string): Frontmatter | null {
  if (!/^---[ \t]*\r?\n/.test(text)) return null;
  const lines = text.split("\n", MAX_LINES + 1).map((l) => l.replace(/\r$/, ""));
  const end = lines.findIndex((l, i) => i > 0 && /^(---|\.\.\.)[ \t]*$/.test(l));
  if (end < 0) return null;
  const out: Frontmatter = { lines: end + 1 };
  let parent = "";
  for (const line of lines.slice(1, end)) {
    const m = /^([ \t]*)([A-Za-z_][\w-]*)[ \t]*:(.*)$/.exec(line);
    if (!m) continue;
    const [, indent, key, rest] = m as unknown as [string, string, string, string];
    if (!indent) parent = rest.trim() === "" ? key : "";
    const nested = indent !== "";
    if (nested && parent !== "metadata") continue;
    const value = unquote(rest);
    if (!value) continue;
    if (!nested && (key === "name" || key === "description")) out[key] = value;
    else if (key === "type") out.type ??= value;
  }
  return out;
}

/** The header line that stands for a frontmatter block ("" when it names nothing). */
export function frontmatterHeader(fm: Frontmatter): string {
  const title = [fm.name, fm.description].filter(Boolean).join(" — ");
  const type = fm.type ? `[${fm.type}]` : "";
  const head = [type, title].filter(Boolean).join(" ");
  if (!head) return "";
  return fm.type && PREFERENCE_TYPES.has(fm.type.toLowerCase())
    ? `${head} <!-- importance: ${PREFERENCE_IMPORTANCE} -->`
    : head;
}

/** The text with its frontmatter replaced by the header and blank lines (same line count). */
export function replaceFrontmatter(text: string): string {
  const fm = parseFrontmatter(text);
  if (!fm) return text;
  let at = 0;
  for (let i = 0; i < fm.lines; i++) {
    const nl = text.indexOf("\n", at);
    at = nl < 0 ? text.length : nl + 1;
  }
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  // Blank lines, then the header on the closing line: the chunk starts at the header.
  return eol.repeat(fm.lines - 1) + frontmatterHeader(fm) + eol + text.slice(at);
}
