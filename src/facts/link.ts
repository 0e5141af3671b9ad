import type { Mention, Reading } from "./mentions.js";

/** One statement as the linker sees it: when it was said and what it names. */
export interface StatementIn {
  id: number;
  /** When it was said (ms since epoch); null: before every dated statement (an undated curated line). */
  at: number | null;
  reading: Reading;
}

/** A statement's place in one slot: what it says the entity's value of that class is (or no longer is). */
export interface SlotEntry {
  entity: string;
  cls: string;
  statement: number;
  /** Values it states (lowercase keys). */
  news: string[];
  /** Values it says are no longer so. */
  olds: string[];
}

/** What a slot can be about; a plain word ("webhook") is shared by unrelated notes, so it is none. */
const ENTITY_KINDS = new Set<Mention["kind"]>(["name", "identifier", "phrase"]);

/** The node a predicate is in the class graph (no name key starts with a control character). */
const PREDICATE = "\u0001";

/**
 * The name-class edges one statement contributes: two names are of one class when one replaced the
 * other in a statement ("doesn't use Zed anymore; it's Neovim now", "from Zurich to Valencia"), or
 * when they fill the same predicate ("Kira reports to X", "Elena reports to Y": both joined to the
 * predicate's node).
 */
export function classEdges(r: Reading): Array<[string, string]> {
  const subject = subjectOf(r);
  const names = r.mentions.filter((m) => m.kind === "name" && m !== subject && !withinEntity(m, r.mentions));
  const out: Array<[string, string]> = [];
  const olds = names.filter((n) => n.old);
  const news = names.filter((n) => !n.old);
  for (const o of olds) for (const n of news) out.push([o.key, n.key]);
  if (r.predicate !== "" && names.length === 1) out.push([names[0]!.key, `${PREDICATE}${r.predicate}`]);
  return out;
}

/**
 * The classes of name values, learned from the workspace itself (the edges of all its statements):
 * a name's class is the least name of its connected part. Only names in a class with another name
 * are returned; any other name is a class of its own. Typed values (times, weekdays, ids, versions)
 * have their class already.
 */
export function classesOf(edges: Iterable<readonly [string, string]>): Map<string, string> {
  const parent = new Map<string, string>();
  const find = (k: string): string => {
    let r = k;
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r)!;
    for (let x = k; x !== r;) {
      const next = parent.get(x)!;
      parent.set(x, r);
      x = next;
    }
    return r;
  };
  for (const [a, b] of edges) {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(ra < rb ? rb : ra, ra < rb ? ra : rb);
  }
  const least = new Map<string, string>();
  const size = new Map<string, number>();
  for (const k of parent.keys()) {
    if (k.startsWith(PREDICATE)) continue;
    const r = find(k);
    const l = least.get(r);
    if (l === undefined || k < l) least.set(r, k);
    size.set(r, (size.get(r) ?? 0) + 1);
  }
  const out = new Map<string, string>();
  for (const k of parent.keys()) {
    if (k.startsWith(PREDICATE)) continue;
    const r = find(k);
    if (size.get(r)! > 1) out.set(k, least.get(r)!);
  }
  return out;
}

/** A statement's subject: the owner it names ("Elena's manager"), else its first entity. */
function subjectOf(r: Reading): Mention | undefined {
  return r.mentions.find((m) => m.possessive) ?? r.mentions.find((m) => ENTITY_KINDS.has(m.kind) && !m.old);
}

/**
 * Whether a name is a word of a longer thing the statement names ("SDK" of "the SDK repo",
 * "Android" of "the Android app"): part of an entity, not a value of one.
 */
function withinEntity(m: Mention, mentions: readonly Mention[]): boolean {
  return mentions.some(
    (o) => o !== m && (o.kind === "phrase" || o.kind === "identifier") && o.key !== m.key && partOf(m.key, o.key),
  );
}

/** Whether a value mention is part of the entity itself ("android" of "android app"). */
export function partOf(value: string, entity: string): boolean {
  return value === entity || ` ${entity} `.includes(` ${value} `) || ` ${value} `.includes(` ${entity} `);
}

/**
 * Every (entity, class) slot a statement speaks to: for each entity it names, the values of each
 * class it states or says are gone. A name value's class is its learned class; a name not seen in
 * any change or shared predicate is a class of its own (it conflicts with nothing).
 */
export function slotEntries(s: StatementIn, classes: Pick<ReadonlyMap<string, string>, "get">): SlotEntry[] {
  const ms = s.reading.mentions;
  const entities = [...new Set(ms.filter((m) => ENTITY_KINDS.has(m.kind)).map((m) => m.key))];
  const values = ms.filter((m) => m.kind === "value" || (m.kind === "name" && !withinEntity(m, ms)));
  const out: SlotEntry[] = [];
  for (const entity of entities) {
    const slots = new Map<string, SlotEntry>();
    for (const v of values) {
      if (partOf(v.key, entity)) continue;
      const cls = v.cls ?? `name:${classes.get(v.key) ?? v.key}`;
      let e = slots.get(cls);
      if (!e) slots.set(cls, (e = { entity, cls, statement: s.id, news: [], olds: [] }));
      (v.old ? e.olds : e.news).push(v.key);
    }
    // A slot of one name that is no class (nothing ever replaced it) is no fact that changes.
    for (const e of slots.values()) if (e.cls.startsWith("name:") || e.news.length + e.olds.length > 0) out.push(e);
  }
  return out;
}

export interface ChainEntry extends SlotEntry {
  at: number | null;
}

/** How a statement stands in its slot as of a moment. */
export interface Standing {
  statement: number;
  /** The later statement that superseded it (as of the moment), and when. */
  supersededBy?: { statement: number; at: number | null };
  /** Said after the moment, in a slot that already had a value then. */
  later?: boolean;
  /** States the slot's value as of the moment (the newest statement, or an older one agreeing with it). */
  current?: boolean;
}

/** Time order, undated (curated) first. */
export function byTime(
  a: { at: number | null; statement: number },
  b: { at: number | null; statement: number },
): number {
  return (a.at ?? -Infinity) - (b.at ?? -Infinity) || a.statement - b.statement;
}

/**
 * One slot's statements as of `asOf` (ms; Infinity: now and ever). A statement is superseded by the
 * first later one (not after `asOf`) that states other values, or says one of its values is gone;
 * one restating its value does not. The newest stating statement is current.
 */
export function standings(chain: readonly ChainEntry[], asOf = Infinity): Standing[] {
  const sorted = [...chain].sort(byTime);
  const known = sorted.filter((c) => (c.at ?? -Infinity) <= asOf);
  const out: Standing[] = [];
  for (let i = 0; i < known.length; i++) {
    const c = known[i]!;
    const st: Standing = { statement: c.statement };
    if (c.news.length > 0) {
      for (let j = i + 1; j < known.length; j++) {
        const n = known[j]!;
        const goneByName = n.olds.some((o) => c.news.includes(o));
        const other = n.news.length > 0 && !n.news.some((v) => c.news.includes(v));
        if (goneByName || other) {
          st.supersededBy = { statement: n.statement, at: n.at };
          break;
        }
      }
      if (!st.supersededBy) st.current = true;
    }
    out.push(st);
  }
  const someKnown = known.some((c) => c.news.length > 0);
  for (const c of sorted.slice(known.length))
    out.push({ statement: c.statement, ...(someKnown ? { later: true } : {}) });
  return out;
}
