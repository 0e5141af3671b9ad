import type { EntityCount, EntityGraph } from "../index/repos/entity-graph.js";
import { isFrameWord } from "./frame-words.js";

/**
 * Whether a stored entity name names something (a person, project, service, host, place, tool) and
 * is no common word the readers caught: a capitalised name or an identifier (`billing-api`), with
 * two letters in a row (not a reference like "D25:16"), no contraction ("I've"), and not one of the
 * most frequent English words on its own ("Glad", "Session").
 */
export function isEntityName(name: string): boolean {
  if (!/\p{L}{2}/u.test(name) || /['’]/.test(name)) return false;
  if (/[-_]/.test(name)) return true;
  if (!/^\p{Lu}/u.test(name)) return false;
  return name.includes(" ") || !isFrameWord(name.toLowerCase());
}

/**
 * Whether a stored entity name is a name that is also one of the most frequent English words
 * ("Grace", "Mark", "Will"): left out by isEntityName, it names someone where the workspace writes it
 * as a name (`graph.isWrittenAsName`: capitalised within sentences, word-case.ts).
 */
export function isNameOrWord(name: string): boolean {
  return /^\p{Lu}\p{L}+$/u.test(name) && isFrameWord(name.toLowerCase());
}

/** A prompt's entity that names something: isEntityName, or a common word the workspace writes as a name. */
export function namesAnEntity(graph: EntityGraph, e: { entity: string; name: string }): boolean {
  return isEntityName(e.name) || (isNameOrWord(e.name) && graph.isWrittenAsName(e.entity));
}

/**
 * The named entities in the most chunks, each with its aliases in the workspace folded in: "Alice"
 * goes with "Alice Chen" when that is the only longer name starting with it (the longer name stays,
 * the count is the larger); a name opened by a common word whose rest is itself an entity ("Yeah
 * Mel" beside "Mel") is a reading slip and left out, and so is a one-word name the workspace mostly
 * writes in lowercase (a sentence-opening word: index/repos/word-case.ts; asked of the list's entries
 * in order until n are found). Reads the top 20 × n rows only.
 */
export function topEntities(graph: EntityGraph, n: number): Array<EntityCount & { aliases?: string[] }> {
  const rows = graph.top(n * 20);
  const keys = new Set(rows.map((e) => e.entity));
  const named = rows.filter((e) => {
    if (!isEntityName(e.name)) return false;
    const [first, ...rest] = e.entity.split(" ");
    return !(rest.length > 0 && isFrameWord(first!) && keys.has(rest.join(" ")));
  });
  const out = new Map<string, EntityCount & { aliases?: string[] }>();
  for (const e of named) {
    const longer = graph.longerNames(e.entity, 2);
    const full = longer.length === 1 ? named.find((x) => x.entity === longer[0]) : undefined;
    const into = full ? (out.get(full.entity) ?? { ...full }) : (out.get(e.entity) ?? { ...e });
    if (full) {
      into.aliases = [...(into.aliases ?? []), e.name];
      into.chunks = Math.max(into.chunks, e.chunks);
    }
    out.set(into.entity, into);
  }
  // The words among them are asked last, in order, only until n are found: each verdict reads a
  // word's newest chunks, and the top 20 × n rows would be thousands of chunks per call.
  const listed: Array<EntityCount & { aliases?: string[] }> = [];
  for (const e of [...out.values()].sort((a, b) => b.chunks - a.chunks || a.entity.localeCompare(b.entity))) {
    if (listed.length >= n) break;
    if (!graph.isWord(e.entity)) listed.push(e);
  }
  return listed;
}
