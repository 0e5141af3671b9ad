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
  // A rewrite whose trigger is nowhere in the text is not looked for line by line.
  const hashes = noComments.includes("#");
  const pipes = noComments.includes("|");
  const dots = pipes || noComments.includes("·"); // the pipes become " · "
  const spaces = noComments.includes("  ") || noComments.includes("\t") || noComments.includes("\u00a0");
  const lines: string[] = [];
  for (const raw of noComments.split("\n")) {
    let l = raw;
    if (hashes && l.includes("#")) l = l.replace(/^\s{0,3}#{1,6}\s+/, ""); // heading hashes
    // Bullets, numbers, task boxes and quotes begin with a mark after the indentation.
    if (MARK_FIRST.test(l))
      l = l
        .replace(/^\s*(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?/, "") // bullets, numbers, task boxes
        .replace(/^\s*>\s?/, ""); // quotes
    // Table pipes: a leading one goes, the others become " · ".
    if (pipes && l.includes("|")) l = l.replace(/^\s*\|\s*/, "").replace(/\s*\|\s*/g, " · ");
    if (dots && l.includes("·")) l = l.replace(/(?:\s*·\s*)+$/, "");
    if (spaces && (l.includes("  ") || l.includes("\t") || l.includes("\u00a0"))) l = l.replace(/[ \t\u00a0]+/g, " ");
    l = l.trim();
    // Rules and table separators are made of these marks only.
    if (RULE_FIRST.test(l) && (/^(?:[-*_=~·]\s*){3,}$/.test(l) || /^:?-{3,}:?(?:\s*·\s*:?-{3,}:?)*$/.test(l))) l = "";
    if (l !== "") lines.push(l);
  }
  return lines.join("\n");
}

const HEADING = /^\s{0,3}#{1,6}(?:\s|$)/;

/** Whether a memory's text is more than headings and HTML comments. */
export function hasContent(text: string): boolean {
  return text
    .replace(/<!--[\s\S]*?(?:-->|$)/g, "")
    .split("\n")
    .some((l) => l.trim() !== "" && !HEADING.test(l));
}
