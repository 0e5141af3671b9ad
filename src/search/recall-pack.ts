import { countTokens } from "../ingest/tokens.js";
import type { Unit } from "../ingest/units.js";
import { consolidationNote } from "../consolidate/annotate.js";
import { BLOCK_TOKENS, formatMemoryLine } from "./recall-format.js";
import { cleanMemoryText, hasContent } from "./recall-clean.js";
import type { Judged, Packed } from "./recall-select.js";
import { DEFAULT_EXCERPT, excerpt, isEntry, whole } from "./excerpt.js";
import type { ScannedText } from "./recall-scan.js";
import { PackedWords } from "./recall-overlap.js";
import { unnamedTurns } from "./recall-speakers.js";

/**
 * Packing recall's kept memories into its budget: the best few whole, the rest as excerpts of the
 * lines that answer the prompt; near duplicates and lines shown before left out; the last memory
 * that does not fit cut to what is left.
 */

const EXCERPT = DEFAULT_EXCERPT;
/** A conversation's excerpt about a speaker fills its room with that speaker's turns, the matching ones first. */
const SPEAKER_EXCERPT = { ...DEFAULT_EXCERPT, keepRatio: 0 };

export interface Packing {
  /** The best this-many memories are shown whole, the others as excerpts. */
  wholeTop: number;
  /** Word overlap with a memory packed before at which a memory is a near duplicate (Infinity: none is). */
  duplicateOverlap: number;
  /** A list chunk (bullets) whose entries hold the prompt's words shows those entries only, even among the top. */
  matchingEntries: boolean;
  /** A conversation shows the turns of the speakers the prompt names (recall-speakers.ts). */
  speakers: boolean;
}

/** A window's memories are each shown whole, and two days that read alike are two days. */
export const WINDOW_PACKING: Packing = {
  wholeTop: Infinity,
  duplicateOverlap: Infinity,
  matchingEntries: false,
  speakers: false,
};

/** The kept memories that fit the budget, as block lines: the best few whole, the rest as excerpts. */
export function pack(
  kept: readonly Judged[],
  query: string,
  queryStems: ReadonlySet<string>,
  scanOf: (j: Judged) => ScannedText,
  budget: number,
  { wholeTop, duplicateOverlap, matchingEntries, speakers }: Packing,
  workspace?: string,
): Packed[] {
  let used = BLOCK_TOKENS;
  // Excerpts: show the lines of each chunk that answer the query, so more memories fit the budget.
  // The stems' weights: how many of the kept memories' units hold each query stem.
  const unitDf = new Map<string, number>();
  let unitCount = 0;
  for (const judged of kept) {
    const s = scanOf(judged);
    unitCount += s.units.length;
    for (const stems of s.held) for (const st of stems) unitDf.set(st, (unitDf.get(st) ?? 0) + 1);
  }
  const idf = (st: string) => Math.log(1 + unitCount / (1 + (unitDf.get(st) ?? 0)));
  /** Per path, the unit texts shown so far. */
  const shown = new Map<string, Set<string>>();
  const out: Packed[] = [];
  // Near duplicates (word overlap ≥ duplicateOverlap with a memory packed before) collapse to the first.
  const packedWords = new PackedWords(duplicateOverlap);
  // A conversation's turns by speakers the prompt does not name are left out (recall-speakers.ts).
  const unnamed = speakers ? unnamedTurns(query) : () => new Set<Unit>();
  for (const judged of kept) {
    if (used >= budget) break;
    const hit = judged.hit;
    const full = hit.text ?? hit.snippet;
    // Lines (or messages) an overlapping chunk of the same file already showed are not repeated.
    const shownHere = shown.get(hit.path);
    const s = scanOf(judged);
    // A turn of a speaker the prompt does not name shows when it holds a query word other than a name.
    const others = unnamed(s);
    const isShown = (u: Unit) => others.has(u) || (shownHere?.has(u.text) ?? false);
    // A list of entries (bullets) whose entries match the prompt shows those, not its other entries.
    const listMatch =
      matchingEntries && hit.source !== "transcript" && s.units.some((u, i) => isEntry(u) && s.held[i]!.size > 0);
    const ex =
      out.length >= wholeTop || listMatch
        ? excerpt(full, queryStems, idf, others.size > 0 ? SPEAKER_EXCERPT : EXCERPT, isShown, s)
        : whole(full, isShown, s.units);
    if (!ex || ex.units.length === 0) continue;
    const cleaned = cleanMemoryText(ex.text);
    // A memory of headings and comments only (a new MEMORY.md) holds nothing to recall.
    if (cleaned === "" || !hasContent(ex.text)) continue;
    const text = consolidationNote(hit, cleaned);
    // Markdown lines map to file lines; transcript chunk text does not (its lines are JSONL records).
    const startLine = hit.source === "transcript" ? hit.startLine : Math.min(hit.endLine, hit.startLine + ex.firstLine);
    const endLine = hit.source === "transcript" ? hit.endLine : Math.min(hit.endLine, hit.startLine + ex.lastLine);
    const words = packedWords.test(text);
    if (words.repeats) continue;
    const lineOf = (t: string) =>
      formatMemoryLine({
        ...(workspace ? { workspace } : {}),
        path: hit.path,
        startLine,
        endLine,
        ...(hit.date ? { date: hit.date } : {}),
        text: t,
      });
    let line = lineOf(text);
    let cost = countTokens(line) + 1;
    let finalText = text;
    if (used + cost > budget) {
      const room = budget - used - 1;
      if (room < 40) break; // not worth a fragment
      // Cut the text to the remaining budget (by characters, then verified).
      let chars = Math.floor(text.length * (room / cost));
      do {
        finalText = `${text.slice(0, chars)}…`;
        line = lineOf(finalText);
        cost = countTokens(line) + 1;
        chars = Math.floor(chars * 0.9);
      } while (used + cost > budget && chars > 0);
      if (used + cost > budget) break;
    }
    out.push({ judged, text: finalText, startLine, endLine, cost, line });
    words.keep();
    let mark = shown.get(hit.path);
    if (!mark) shown.set(hit.path, (mark = new Set()));
    for (const u of ex.units) mark.add(u.text);
    used += cost;
  }
  return out;
}
