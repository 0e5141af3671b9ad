import { isUtf8 } from "node:buffer";

/**
 * Decides whether file bytes are text the index can use. UTF-8 is the only encoding memory files
 * have; a file with a few invalid sequences (a Latin-1 "café" pasted in) is still indexed, with
 * U+FFFD in their place, and reported; a file with NUL bytes, or mostly invalid sequences, is binary
 * and skipped.
 */
export type TextCheck = { ok: true; text: string; replaced: number } | { ok: false; reason: string };

/** NUL bytes in the first BINARY_SNIFF bytes mark a file binary (what git and grep do). */
const BINARY_SNIFF = 8192;
/** More than this share of replaced sequences (per character) means it is not UTF-8 text at all. */
const MAX_REPLACED_SHARE = 0.1;

/**
 * The bytes as text, or why they are not text. `decode: false` checks only (transcripts parse bytes);
 * `maxChars`: valid UTF-8 is decoded only as far as needed for that many characters (the indexer
 * chunks no more), so a huge file does not cost a huge string.
 */
export function checkText(buf: Buffer, opts: { decode?: boolean; maxChars?: number } = {}): TextCheck {
  const sniff = buf.subarray(0, BINARY_SNIFF);
  if (sniff.includes(0)) return { ok: false, reason: "binary content (NUL bytes)" };
  if (isUtf8(buf)) {
    if (opts.decode === false) return { ok: true, text: "", replaced: 0 };
    // At most 4 bytes a character: this many bytes hold maxChars characters (a character cut at the end becomes U+FFFD, past the cap).
    const part =
      opts.maxChars !== undefined && buf.length > opts.maxChars * 4 + 4 ? buf.subarray(0, opts.maxChars * 4 + 4) : buf;
    return { ok: true, text: part.toString("utf8"), replaced: 0 };
  }
  const text = buf.toString("utf8");
  const replaced = countReplacements(buf, text);
  if (replaced > Math.max(8, text.length * MAX_REPLACED_SHARE)) {
    return { ok: false, reason: `not UTF-8 text (${replaced} invalid sequences in ${buf.length} bytes)` };
  }
  return { ok: true, text: opts.decode === false ? "" : text, replaced };
}

/** U+FFFD characters produced by decoding (those that were in the file, as EF BF BD, do not count). */
function countReplacements(buf: Buffer, text: string): number {
  let decoded = 0;
  for (let i = text.indexOf("\uFFFD"); i !== -1; i = text.indexOf("\uFFFD", i + 1)) decoded++;
  let genuine = 0;
  const fffd = Buffer.from([0xef, 0xbf, 0xbd]);
  for (let i = buf.indexOf(fffd); i !== -1; i = buf.indexOf(fffd, i + 3)) genuine++;
  return decoded - genuine;
}
