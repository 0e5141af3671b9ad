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
 * The rewrites are regular expressions applied in order, each to the whole text.
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
const SPACE_RUNS = /\s{2,}/g;

export function escapeForBlock(s: string): string {
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
