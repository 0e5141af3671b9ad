import type { IndexStore } from "../index/repos/store.js";
import { promptEntityKeys } from "./recall-facts.js";
import { isEntityName, namesAnEntity } from "./entity-names.js";
import type { EntityCount, EntityGraph } from "../index/repos/entity-graph.js";
import type { ReadSnapshot } from "../index/db/read-snapshot.js";

/** Prompt entities followed (after aliases). */
const MAX_PROMPT_ENTITIES = 4;
/** Chunks read per prompt entity (hop 1) and per co-occurring entity (hop 2). */
const HOP1_FAN = 24;
const HOP2_FAN = 8;
/** Co-occurring entities followed (hop 2), of the most frequent few read. */
const HOP2_ENTITIES = 3;
const COOCCUR_READ = 24;
/**
 * An entity named in more than this share of the chunks (a workspace's owner, the two speakers of
 * a chat) says nothing about which memory is meant: neither followed nor counted.
 */
const MAX_SHARE = 0.08;
/** The bonus added to the fused score of a chunk naming a prompt entity (hop 1) or a co-occurring one (hop 2). */
export const ENTITY_WEIGHT = { hop1: 0.03, hop2: 0.03 };

export interface EntityLink {
  /** 1: the chunk names a prompt entity; 2: it names an entity co-occurring with one. */
  hop: 1 | 2;
  /** The entity (as written) that links it. */
  via: string;
}

export interface EntityLegResult {
  /** The entities the prompt names (as written in the memories; aliases included). */
  prompt: string[];
  /** The co-occurring entities followed (hop 2). */
  linked: string[];
  /** Chunk id → how it is linked (its best link). */
  chunks: Map<number, EntityLink>;
}

/** The leg that found nothing (or did not run). */
export const NO_ENTITIES: EntityLegResult = { prompt: [], linked: [], chunks: new Map() };
const NONE = NO_ENTITIES;

/**
 * The entity leg of search: the specific entities the prompt names (names, identifiers, "the …"
 * phrases the index holds, each with its aliases in the workspace — "Alice" and "Alice Chen" when
 * only one longer name starts with "Alice"), the chunks that name them (hop 1), and the chunks naming
 * the entities those chunks name most often with them (hop 2). Entities named in more than
 * MAX_SHARE of the chunks are left out, and so are one-word "names" the workspace mostly writes in
 * lowercase (sentence-opening common words: index/repos/word-case.ts). Bounded: at most 4 prompt
 * entities × 24 chunks, then 3 co-occurring entities × 8 chunks — a handful of indexed reads per
 * request.
 */
export function entityLeg(store: IndexStore, query: string, snap?: ReadSnapshot): EntityLegResult {
  const graph = store.entities;
  const { found, cap } = promptEntities(store, query, MAX_SHARE, snap);
  if (found.length === 0) return NONE;
  const chunks = new Map<number, EntityLink>();
  const hop1: number[] = [];
  for (const e of found)
    for (const id of graph.chunksOf(e.entity, HOP1_FAN)) {
      if (!chunks.has(id)) hop1.push(id);
      chunks.set(id, { hop: 1, via: e.name });
    }
  const own = new Set(found.map((e) => e.entity));
  const co = graph.cooccurring(hop1, COOCCUR_READ).filter((c) => !own.has(c.entity) && c.n >= 2);
  const df = new Map(
    graph
      .counts(
        co.map((c) => c.entity),
        cap,
      )
      .map((e) => [e.entity, e.chunks]),
  );
  // Association, not frequency: how much of the entity's mentions are with the prompt's entities.
  const linked: Array<{ entity: string; name: string }> = [];
  for (const c of co
    .filter((c) => (df.get(c.entity) ?? Infinity) <= cap && isEntityName(c.name))
    .map((c) => ({ ...c, share: c.n / df.get(c.entity)! }))
    .sort((a, b) => b.share - a.share || b.n - a.n || a.entity.localeCompare(b.entity))) {
    if (linked.length >= HOP2_ENTITIES) break;
    if (!graph.isWord(c.entity)) linked.push(c); // asked in order, only until three are found
  }
  for (const c of linked)
    for (const id of graph.chunksOf(c.entity, HOP2_FAN)) if (!chunks.has(id)) chunks.set(id, { hop: 2, via: c.name });
  return { prompt: found.map((e) => e.name), linked: linked.map((c) => c.name), chunks };
}

/**
 * The specific entities a prompt names, as the index holds them: its names, identifiers and "the …"
 * phrases with their aliases in the workspace, rarest first, at most MAX_PROMPT_ENTITIES; those named
 * in more than MAX_SHARE of the chunks are left out (`cap`: that share as a count), and so are one-word
 * names the workspace mostly writes in lowercase (a word, not a name: word-case.ts, kept until the
 * chunks change). Two indexed reads, and a look at how each new one-word name is written; with a
 * request's snapshot (`snap`), those are read once per request (its search's entity leg, then
 * recall's order ask for the same prompt).
 */
export function promptEntities(
  store: IndexStore,
  query: string,
  maxShare = MAX_SHARE,
  snap?: ReadSnapshot,
): { found: EntityCount[]; cap: number } {
  const graph = store.entities;
  const keys = promptEntityKeys(query);
  if (keys.length === 0) return { found: [], cap: 0 };
  const total = graph.chunkCount();
  if (total === 0) return { found: [], cap: 0 };
  const cap = Math.max(2, Math.floor(total * maxShare));
  const named = snap ? snap.keep(`prompt entities\u0000${query}`, () => namedIn(graph, keys)) : namedIn(graph, keys);
  const found = countedUpTo(graph, named, cap, snap)
    .filter((e) => e.chunks <= cap && namesAnEntity(graph, e))
    .sort((a, b) => a.chunks - b.chunks || a.entity.localeCompare(b.entity))
    .slice(0, MAX_PROMPT_ENTITIES);
  return { found, cap };
}

/** The counts a request read of some keys: exact up to `cap`; a key named in more chunks shows cap + 1. */
interface CountsRead {
  cap: number;
  rows: Map<string, EntityCount>;
}

/**
 * graph.counts(keys, cap), read once per request (`snap`): asked again with a higher cap (recall's
 * order after the search's entity leg), only the keys counted past the lower one are counted again.
 */
function countedUpTo(graph: EntityGraph, keys: readonly string[], cap: number, snap?: ReadSnapshot): EntityCount[] {
  if (!snap || keys.length === 0) return graph.counts(keys, cap);
  const read = snap.keep(`entity counts\u0000${keys.join("\u0000")}`, (): CountsRead => ({ cap: -1, rows: new Map() }));
  if (read.cap < cap) {
    // A key absent from the rows is named by no chunk; one shown at the lower cap + 1 may be named in more.
    const again = read.cap < 0 ? keys : keys.filter((k) => (read.rows.get(k)?.chunks ?? 0) > read.cap);
    for (const e of graph.counts(again, cap)) read.rows.set(e.entity, e);
    read.cap = cap;
  }
  return [...read.rows.values()].map((e) => (e.chunks > cap ? { ...e, chunks: cap + 1 } : e));
}

/** Of a prompt's entity keys with their aliases in the workspace, those some chunk names, words left out. */
function namedIn(graph: EntityGraph, keys: readonly string[]): string[] {
  const withAliases = new Set(keys);
  // "alice" → "alice chen" when it is the only longer name; "alice chen" → "alice" likewise.
  const firsts = keys.filter((k) => k.includes(" ")).map((k) => k.split(" ")[0]!);
  const longer = graph.onlyLongerNames([...keys, ...firsts]);
  for (const k of keys) {
    const full = longer.get(k);
    if (full) withAliases.add(full);
    const first = k.split(" ")[0]!;
    if (first !== k && longer.has(first)) withAliases.add(first);
  }
  // The words among them (verdicts kept until the chunks change) are left out before anything is
  // counted: a sentence-opening word is named in hundreds of chunks, each a row to count.
  return graph.known([...withAliases]).filter((k) => !graph.isWord(k));
}

/** The fused-score bonus of a linked chunk. */
export function entityBonus(link: EntityLink): number {
  return link.hop === 1 ? ENTITY_WEIGHT.hop1 : ENTITY_WEIGHT.hop2;
}
