import { normalizeGroupId, type Visibility } from "./visibility.js";

/**
 * The visibility tag cortexd writes at the end of every entry it appends to a daily log (a save, a
 * captured turn, a checkpoint): `- text #tag <!-- importance: 7 --> <!-- visibility: group:telegram:group:-100 -->`.
 * The file says who may see the entry, so an index rebuilt from the files knows it again. Only the
 * tag at the very end of an entry's last line counts, and cortexd always writes its own there, so
 * a look-alike inside the text changes nothing; a line without a tag (written by hand) is `open`.
 */
const TAG_AT_END = / ?<!-- visibility: (private|group:[^\s<>]{1,160}) -->\s*$/;
const BULLET = /^[-*+] /;
const HEADING = /^ {0,3}#{1,6}(?:\s|$)/;

/** The tag written for a visibility ("" for open: an untagged line is open). */
export function visibilityTag(vis: Visibility): string {
  if (vis === "private") return "<!-- visibility: private -->";
  if (vis.startsWith("group:")) return `<!-- visibility: group:${normalizeGroupId(vis.slice(6))} -->`;
  return "";
}

/** The visibility a line's trailing tag names, or undefined when it has none. */
export function tagOfLine(line: string): Visibility | undefined {
  const m = TAG_AT_END.exec(line);
  return m ? (m[1] as Visibility) : undefined;
}

/** Any visibility tag inside a text written by someone else, made inert (`<!-- visibility:` → `<!-- visibility‐:`). */
export function defuseTags(text: string): string {
  return text.replace(/<!--(\s*)visibility:/gi, "<!--$1visibility\u2010:");
}

/**
 * The visibility of each line of a markdown memory file (0-based). An entry (a top-level bullet and
 * its indented continuation lines) takes the tag of its last line; other text is open; headings
 * and blank lines take the visibility of what follows them (else of what precedes).
 */
export function lineVisibilities(lines: readonly string[]): Visibility[] {
  const out: (Visibility | null)[] = new Array<Visibility | null>(lines.length).fill(null);
  for (let i = 0; i < lines.length;) {
    const line = lines[i]!;
    if (BULLET.test(line)) {
      let end = i + 1;
      while (end < lines.length && /^[ \t]+\S/.test(lines[end]!)) end++;
      const vis = tagOfLine(lines[end - 1]!) ?? "open";
      for (let j = i; j < end; j++) out[j] = vis;
      i = end;
      continue;
    }
    out[i] = line.trim() === "" || HEADING.test(line) ? null : "open";
    i++;
  }
  let next: Visibility | null = null;
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i] === null) out[i] = next;
    else next = out[i]!;
  }
  let prev: Visibility = "open";
  for (let i = 0; i < out.length; i++) {
    if (out[i] === null) out[i] = prev;
    else prev = out[i]!;
  }
  return out as Visibility[];
}

/** Runs of lines of one visibility: [from, to) line indices (0-based). */
export function visibilityRuns(vis: readonly Visibility[]): { from: number; to: number; vis: Visibility }[] {
  const runs: { from: number; to: number; vis: Visibility }[] = [];
  for (let i = 0; i < vis.length; i++) {
    const last = runs[runs.length - 1];
    if (last && last.vis === vis[i]) last.to = i + 1;
    else runs.push({ from: i, to: i + 1, vis: vis[i]! });
  }
  return runs;
}
