/**
 * FTS5's unicode61 tokenizer keeps a run of CJK characters as one token, so a query for one word in
 * a Chinese or Japanese sentence finds nothing. We index CJK text with a space around each ideograph /
 * kana, and query CJK runs as phrases of single characters: adjacent characters must match in order.
 */
function isCjk(code: number): boolean {
  return (
    (code >= 0x3040 && code <= 0x30ff) || // hiragana, katakana
    (code >= 0x3400 && code <= 0x4dbf) || // CJK ext A
    (code >= 0x4e00 && code <= 0x9fff) || // CJK unified
    (code >= 0xf900 && code <= 0xfaff) || // compatibility ideographs
    (code >= 0xff66 && code <= 0xff9d) // half-width katakana
  );
}

export function hasCjk(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (isCjk(text.charCodeAt(i))) return true;
  return false;
}

/** The text given to FTS5 for indexing (identical to the input when it has no CJK). */
export function prepareFtsText(text: string): string {
  if (!hasCjk(text)) return text;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out += isCjk(c) ? ` ${text[i]} ` : text[i];
  }
  return out;
}

/** Splits a CJK run into its characters (for a phrase query). */
export function splitCjk(token: string): string[] {
  return hasCjk(token) ? prepareFtsText(token).split(/\s+/).filter(Boolean) : [token];
}

/** The FTS5 phrase for one query word: quoted (any string is safe), a CJK run as a phrase of its characters. */
export function termPhrase(term: string): string {
  const chars = splitCjk(term);
  return `"${(chars.length > 1 ? chars.join(" ") : term).replace(/"/g, '""')}"`;
}
