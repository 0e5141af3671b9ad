/**
 * The text of a memory as an agent should read it: without HTML comments (importance annotations,
 * promotion notes), without markdown layout (heading hashes, bullets, rules, table pipes, blank
 * lines) and without runs of whitespace. Words, numbers, brackets and tags (#ops) stay.
 */
const MARK_FIRST = /^\s*[-*+>\d]/;
const RULE_FIRST = /^[-*_=~·:]/;

export function cleanMemoryText(text: string): string {
  // Each rewrite runs only on lines holding its trigger: recall cleans every line it injects.
  const noComments = text.includes("<!--") ? text.replace(/<!--[\s\S]*?(?:-->|$)/g, " ") : text;
  const lines: string[] = [];
  for (const raw of noComments.split("\n")) {
    let l = raw;
    if (l.includes("#")) l = l.replace(/^\s{0,3}#{1,6}\s+/, ""); // heading hashes
    // Bullets, numbers, task boxes and quotes begin with a mark after the indentation.
    if (MARK_FIRST.test(l))
      l = l
        .replace(/^\s*(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?/, "") // bullets, numbers, task boxes
        .replace(/^\s*>\s?/, ""); // quotes
    if (l.includes("|")) l = l.replace(/\s*\|\s*/g, (m, at: number) => (at === 0 ? "" : " · ")); // table pipes
    if (l.includes("·")) l = l.replace(/(?:\s*·\s*)+$/, "");
    if (l.includes("  ") || l.includes("\t") || l.includes("\u00a0")) l = l.replace(/[ \t\u00a0]+/g, " ");
    l = l.trim();
    // Rules and table separators are made of these marks only.
    if (RULE_FIRST.test(l) && (/^(?:[-*_=~·]\s*){3,}$/.test(l) || /^:?-{3,}:?(?:\s*·\s*:?-{3,}:?)*$/.test(l))) l = "";
    if (l !== "") lines.push(l);
  }
  return lines.join("\n");
}

/** Bidi overrides and isolates, zero-width and other invisible format characters: they can hide or reorder text. */
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

/**
 * One user-controlled string (a path, a tag, a memory's text) made safe inside the recall block:
 * on one line (newlines become " ⏎ ", other control characters spaces), no invisible characters,
 * and no `<` that could start a tag — so nothing can close the block or open another one.
 */
export function escapeForBlock(s: string): string {
  return (
    s
      .replace(INVISIBLE, "")
      .replace(/\s*(?:\r\n|[\n\r\u2028\u2029\u0085])\s*/g, " ⏎ ")
      // eslint-disable-next-line no-control-regex -- control characters are what this removes
      .replace(/[\u0000-\u001f\u007f]/g, " ")
      .replace(/<(?=[/!?\p{L}]|\s+\/)/gu, "‹")
      .replace(/\s{2,}/g, " ")
      .trim()
  );
}
