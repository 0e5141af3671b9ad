/**
 * One user-controlled string (a path, a tag, a memory's text) made safe inside the recall block:
 * on one line (newlines become " ⏎ ", other control characters spaces), no invisible characters,
 * and no `<` that could start a tag — so nothing can close the block or open another one. Only
 * cortexd makes the line separator and the block markers: a "⏎" already in the text becomes
 * "[U+23CE]" (so every " ⏎ " is a real line break of the memory), and every look-alike of `<` at a
 * tag start (fullwidth ＜, small ﹤, ‹, mathematical ⟨, angle brackets 〈 〈, ᐸ, ˂) becomes `‹` like
 * `<` itself, and every look-alike of `>` (＞ ﹥ › ⟩ 〉 〉 ᐳ ˃) becomes `>`: a fake
 * `＜/cortex_memories＞` reads exactly as an escaped `</cortex_memories>` does.
 *
 * The rewrites are regular expressions applied in order (`rewrite`); `escapeForBlock` gives what
 * they give, but one pass over the text first says which of them can change it, and those that
 * cannot are not run: recall escapes every memory it injects, and most hold only newlines. A line
 * break between two characters that are not whitespace becomes " ⏎ " without the expression.
 */
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;
const BREAKS = /\s*(?:\r\n|[\n\r\u2028\u2029\u0085])\s*/g;
// eslint-disable-next-line no-control-regex -- control characters are what this removes
const CONTROLS = /[\u0000-\u001f\u007f]/g;
const RETURN_SYMBOL = /\u23ce/g;
const LESS_LIKE = "<\uff1c\ufe64\u2039\u27e8\u2329\u3008\u1438\u02c2";
const GREATER_LIKE = "\uff1e\ufe65\u203a\u27e9\u232a\u3009\u1433\u02c3";
const TAG_START = new RegExp(`[${LESS_LIKE}](?=[/!?\\p{L}]|\\s+\\/)`, "gu");
const GREATER = new RegExp(`[${GREATER_LIKE}]`, "g");
const codes = (chars: string) => new Set([...chars].map((ch) => ch.charCodeAt(0)));
const LESS_CODES = codes(LESS_LIKE.slice(1));
const GREATER_CODES = codes(GREATER_LIKE);
const SPACE_RUNS = /\s{2,}/g;

/** The rewrites, in order: what escapeForBlock computes (its reference; the tests compare them). */
export function rewrite(s: string): string {
  return s
    .replace(INVISIBLE, "")
    .replace(RETURN_SYMBOL, "[U+23CE]")
    .replace(BREAKS, " ⏎ ")
    .replace(CONTROLS, " ")
    .replace(TAG_START, "‹")
    .replace(GREATER, ">")
    .replace(SPACE_RUNS, " ")
    .trim();
}

/** JavaScript's `\s` (WhiteSpace and LineTerminator). */
function isSpace(c: number): boolean {
  if (c < 0x80) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

function isInvisible(c: number): boolean {
  return (c >= 0x200b && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x2069) || c === 0xfeff;
}

const INVISIBLES = 1;
/** A line break other than "\n" (\r, U+2028, U+2029, U+0085), or a "\n" beside whitespace. */
const HARD_BREAKS = 2;
const NEWLINES = 4;
/** A control character other than "\n" and "\r". */
const CONTROL = 8;
const LESS_THAN = 16;
/** Two whitespace characters in a row. */
const SPACE_PAIR = 32;
/** A "⏎" (only cortexd's line separator may show one). */
const RETURN_SIGN = 128;
/** A look-alike of ">". */
const GREATER_SIGN = 256;

/** What each ASCII character is (0: a plain one): the rewrite bits above, and SPACE. */
const SPACE = 64;
const ASCII = new Uint8Array(128);
for (let c = 0; c < 0x20; c++) ASCII[c] = CONTROL;
ASCII[0x7f] = CONTROL;
ASCII[0x0a] = NEWLINES | SPACE;
ASCII[0x0d] = HARD_BREAKS | SPACE;
for (const c of [0x09, 0x0b, 0x0c, 0x20]) ASCII[c] = c === 0x20 ? SPACE : CONTROL | SPACE;
ASCII[0x3c] = LESS_THAN;

function classOf(c: number): number {
  if (c < 0x80) return ASCII[c]!;
  if (c === 0x85) return HARD_BREAKS;
  if (c === 0x2028 || c === 0x2029) return HARD_BREAKS | SPACE;
  if (c === 0xfeff) return INVISIBLES | SPACE;
  if (isInvisible(c)) return INVISIBLES;
  if (c === 0x23ce) return RETURN_SIGN;
  if (LESS_CODES.has(c)) return LESS_THAN;
  if (GREATER_CODES.has(c)) return GREATER_SIGN;
  return isSpace(c) ? SPACE : 0;
}

/** Which rewrites can change `s`. */
function scan(s: string): number {
  let found = 0;
  let prev = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const cls = c < 0x80 ? ASCII[c]! : classOf(c);
    if (cls === 0) {
      prev = 0;
      continue;
    }
    found |= cls;
    if (cls & prev & SPACE) found |= SPACE_PAIR;
    // A "\n" beside whitespace is a hard break (its whitespace joins the " ⏎ ").
    if ((cls | prev) & NEWLINES && cls & prev & SPACE) found |= HARD_BREAKS;
    prev = cls;
  }
  return found & ~SPACE;
}

export function escapeForBlock(s: string): string {
  let t = s;
  let found = scan(t);
  if (found & INVISIBLES) found = scan((t = t.replace(INVISIBLE, "")));
  if (found & RETURN_SIGN) t = t.replace(RETURN_SYMBOL, "[U+23CE]");
  if (found & HARD_BREAKS) {
    // Whitespace around a break, other breaks: the expressions, from here on each one.
    return t
      .replace(BREAKS, " ⏎ ")
      .replace(CONTROLS, " ")
      .replace(TAG_START, "‹")
      .replace(GREATER, ">")
      .replace(SPACE_RUNS, " ")
      .trim();
  }
  // Every break is a "\n" between two non-whitespace characters (or at an end): " ⏎ " adds no
  // whitespace pair, so only the pairs already there are runs to squeeze.
  if (found & NEWLINES) t = t.replaceAll("\n", " ⏎ ");
  if (found & CONTROL) t = t.replace(CONTROLS, " ");
  if (found & LESS_THAN) t = t.replace(TAG_START, "‹");
  if (found & GREATER_SIGN) t = t.replace(GREATER, ">");
  if (found & (SPACE_PAIR | CONTROL)) t = t.replace(SPACE_RUNS, " ");
  return t.trim();
}
