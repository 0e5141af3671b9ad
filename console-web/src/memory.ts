import { h } from "./dom.js";
import { citedLines } from "./lines.js";

/** A citation: the lines of a memory file, the cited ones marked, with context around them. */
export async function memoryPage(params: URLSearchParams): Promise<HTMLElement> {
  const path = params.get("path") ?? "";
  const from = Number(params.get("from") ?? 1) || 1;
  const to = Number(params.get("to") ?? from) || from;
  return h("section", { id: "memory" }, h("h1", {}, `${path}:${from}-${to}`), await citedLines(path, from, to, 8));
}
