import type { IndexStore } from "../index/repos/store.js";
import { slotKey, type FactLinksRepo, type LinkStatement, type StoredEntry } from "../index/repos/fact-links-repo.js";
import { classEdges, classesOf, slotEntries, standings, type ChainEntry } from "./link.js";

/** A slot with more distinct values than this is not stored (many facts sharing a word). */
export const MAX_SLOT_VALUES = 6;

export interface RelinkReport {
  /** Statements that came or went since the last link. */
  statements: number;
  /** (entity, class) slots linked again: those the changed statements are or were in. */
  slots: number;
  /** Slot rows written or deleted (only the links that changed). */
  written: number;
}

/**
 * Links again only the slots the statements that came or went touch (the queue the triggers on
 * fact_statements fill), with the same result as linking every slot from scratch:
 * 1. the changed statements' old entries name the slots they leave; their class edges are replaced;
 * 2. the name classes are learned again from all edges; a name whose class changed moves every
 *    statement with an entry of its old class (their entries are read again);
 * 3. the new entries name the slots they join; each of those slots is linked in time order.
 * One transaction; the queue is emptied with it.
 */
export function relinkChanged(store: IndexStore): RelinkReport {
  const links = store.facts.links;
  return links.atomically(() => {
    const queued = links.queued();
    if (queued.length === 0) return { statements: 0, slots: 0, written: 0 };
    const dirty = new Set<string>(links.slotsOf(queued));
    const few = queued.length <= FEW;
    const oldEdges = few ? links.edgesOf(queued) : [];
    links.drop(queued);
    // The classes are the connected parts of the edges: when no edge (a pair of names) appears or
    // vanishes, none changes, and the stored ones are read name by name instead of learned again
    // from every edge (~0.3–0.7 s a write at a million chunks).
    // (The graph was the other statements' edges and the old ones; it is theirs and the new ones.)
    let graphChanged = !few;
    if (few) {
      const newEdges: Array<[number, Array<[string, string]>]> = [];
      for (const page of pagesOf(links, queued)) for (const s of page) newEdges.push([s.id, classEdges(s.reading)]);
      const key = ([a, b]: readonly [string, string]) => `${a}\u0000${b}`;
      const olds = new Set(oldEdges.map(key));
      const news = new Set(newEdges.flatMap(([, es]) => es.map(key)));
      graphChanged =
        oldEdges.some((e) => !news.has(key(e)) && !links.hasEdge(...e)) ||
        newEdges.some(([, es]) => es.some((e) => !olds.has(key(e)) && !links.hasEdge(...e)));
      for (const [id, es] of newEdges) links.addEdges(id, es);
    } else for (const page of pagesOf(links, queued)) for (const s of page) links.addEdges(s.id, classEdges(s.reading));
    const moved = new Set<string>();
    let classes: Pick<ReadonlyMap<string, string>, "get">;
    if (graphChanged) {
      const learned = classesOf(links.edges());
      const before = links.classes();
      for (const name of new Set([...before.keys(), ...learned.keys()])) {
        const was = before.get(name) ?? name;
        const now = learned.get(name) ?? name;
        if (was === now) continue;
        moved.add(`name:${was}`);
        links.setClass(name, learned.get(name) ?? null);
      }
      classes = learned;
    } else classes = storedClasses(links);
    const queuedSet = new Set(queued);
    const others = links.withClasses([...moved]).filter((id) => !queuedSet.has(id));
    for (const k of links.slotsOf(others)) dirty.add(k);
    links.drop(others);
    let read = 0;
    const inHand = new Map<string, StoredEntry[]>();
    const added: StoredEntry[] = [];
    for (const page of pagesOf(links, [...queued, ...others]))
      for (const s of page) {
        read++;
        for (const e of slotEntries({ id: s.id, at: s.at, reading: s.reading }, classes)) {
          const stored = { ...e, at: s.at, news: JSON.stringify(e.news), olds: JSON.stringify(e.olds) };
          added.push(stored);
          const key = slotKey(e.entity, e.cls);
          dirty.add(key);
          let c = inHand.get(key);
          if (!c) inHand.set(key, (c = []));
          c.push(stored);
        }
      }
    // Every statement read again (a first link): the slots are all in hand, none is read back.
    const whole = !store.facts.statementsBeyond(read);
    links.addEntries(added.sort(byKey));
    let written = 0;
    // (A slot every statement left has no entries: its stored rows go.)
    if (whole) for (const key of dirty) if (!inHand.has(key)) inHand.set(key, []);
    for (const [key, chain] of whole ? inHand : links.chains(dirty)) written += links.setSlot(key, linkedRows(chain));
    links.clearQueue();
    return { statements: queued.length, slots: dirty.size, written };
  });
}

/** Statements queued up to which a link first asks whether the name-class graph changed at all. */
const FEW = 4096;

/** The stored classes, read name by name as asked (and kept for the pass). */
function storedClasses(links: FactLinksRepo): Pick<ReadonlyMap<string, string>, "get"> {
  const seen = new Map<string, string | undefined>();
  return {
    get(name: string) {
      if (!seen.has(name)) seen.set(name, links.classOf(name));
      return seen.get(name);
    },
  };
}

/** Statements read per page: a first link reads every statement, and holds one page of readings at a time. */
const PAGE = 4096;

/** The statements of these ids that exist, with their readings, a page at a time. */
function* pagesOf(links: FactLinksRepo, ids: readonly number[]): Generator<LinkStatement[]> {
  for (let i = 0; i < ids.length; i += PAGE) yield links.statementsIn(ids.slice(i, i + PAGE));
}

/** Forgets every link and links every statement again (a build from scratch over the same statements). */
export function relinkAll(store: IndexStore): RelinkReport {
  store.facts.links.requeueAll();
  return relinkChanged(store);
}

const byKey = (a: StoredEntry, b: StoredEntry) =>
  a.entity < b.entity
    ? -1
    : a.entity > b.entity
      ? 1
      : a.cls < b.cls
        ? -1
        : a.cls > b.cls
          ? 1
          : a.statement - b.statement;

/**
 * One slot's stored rows: each statement with who superseded it as of now. A slot of one statement
 * links nothing, and many values under one word are many facts sharing it, not one that changed
 * (recall-facts.ts): neither is stored (and such a slot's entries are read only until that shows).
 */
function linkedRows(stored: readonly StoredEntry[]): Array<ChainEntry & { supersededBy: number | null }> {
  if (stored.length < 2) return [];
  const values = new Set<string>();
  const chain: ChainEntry[] = [];
  for (const e of stored) {
    const news = JSON.parse(e.news) as string[];
    for (const v of news) values.add(v);
    if (values.size > MAX_SLOT_VALUES) return [];
    chain.push({ ...e, news, olds: JSON.parse(e.olds) as string[] });
  }
  const by = new Map(standings(chain).map((s) => [s.statement, s.supersededBy?.statement ?? null]));
  return chain.map((e) => ({ ...e, supersededBy: by.get(e.statement) ?? null }));
}
