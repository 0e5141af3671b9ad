/** A unit of a chunk that can be shown or scored alone: a line, or a whole transcript message. */
export interface Unit {
  text: string;
  /** 0-based offset of its first line within the chunk text. */
  line: number;
  /** Number of lines it spans. */
  lines: number;
}

const MESSAGE_START = /^(User|Assistant): /;

/** Splits chunk text into units: transcript messages (`User:` / `Assistant:` blocks) or lines. */
export function units(text: string): Unit[] {
  const lines = text.split("\n");
  const out: Unit[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.trim() === "") continue;
    if (MESSAGE_START.test(l)) {
      let j = i + 1;
      while (j < lines.length && lines[j]!.trim() !== "" && !MESSAGE_START.test(lines[j]!)) j++;
      out.push({ text: lines.slice(i, j).join("\n"), line: i, lines: j - i });
      i = j - 1;
    } else out.push({ text: l, line: i, lines: 1 });
  }
  return out;
}
