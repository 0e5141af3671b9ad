import { get } from "./api.js";
import { h } from "./dom.js";

export interface LinesResult {
  path: string;
  text: string;
  from: number;
  to: number;
  totalLines: number;
}

/** The cited lines of a memory file with a few lines of context around them, numbered; the cited ones marked. */
export async function citedLines(path: string, start: number, end: number, context = 3): Promise<HTMLElement> {
  const from = Math.max(1, start - context);
  const r = await get<LinesResult>("lines", { path, from, lines: Math.min(400, end - from + 1 + context) });
  const box = h("div", { class: "lines", "data-path": r.path });
  r.text.split("\n").forEach((line, i) => {
    const no = r.from + i;
    box.append(
      h("div", { class: `ln${no >= start && no <= end ? " cited" : ""}` }, h("span", { class: "no" }, no), line),
    );
  });
  return box;
}
