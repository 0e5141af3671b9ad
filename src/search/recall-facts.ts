import { units } from "../ingest/units.js";
import type { IndexStore } from "../index/repos/store.js";
import type { SlotRow } from "../index/repos/facts-repo.js";
import { standings, type Standing } from "../facts/link.js";
import { readStatement } from "../facts/mentions.js";
import { isFrameWord } from "./frame-words.js";
import { spelledOut } from "./soft-words.js";
import { reinforcedOrder, restatements, timesStated } from "./reinforcement.js";
import type { AnnotatedHit } from "../consolidate/annotate.js";
import { answeringStatements } from "./fact-answers.js";
import { outdatedBesideAnswers } from "./answer-outdated.js";
import { localDay } from "../util/local-day.js";

/** Current statements of the prompt's entities added when search did not return their chunk. */
const MAX_PULLED = 4;
/** Prompt words and word pairs looked up as entities. */
const MAX_KEYS = 48;
import { MAX_SLOT_VALUES as MAX_VALUES } from "../facts/relink.js";

/** One supersession as recall applied it (explain). */
export interface FactLink {
  entity: string;
  statement: string;
  supersededBy?: string;
  /** YYYY-MM-DD of the superseding statement. */
  on?: string;
  later?: boolean;
}

export interface FactsStage {
  hits: AnnotatedHit[];
  entities: string[];
  links: FactLink[];
  /** The memories stating the current value the prompt asks for (fact-answers.ts): relevant as such. */
  answers: ReadonlySet<AnnotatedHit>;
}

interface Verdict {
  row: SlotRow;
  hidden: boolean;
  current: boolean;
  by?: SlotRow;
}

/** The prompt's words, lowercased, a possessive's "'s" dropped. */
const promptWords = (prompt: string) =>
  (prompt.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}_-]*/gu) ?? []).map((w) => w.replace(/'s$/, ""));

/** A word and the words a two-letter abbreviation of it stands for ("db": db, database, databases). */
const forms = (w: string): string[] => [w, ...spelledOut(w)];

const day = (ms: number | null) => (ms === null ? undefined : new Date(ms).toISOString().slice(0, 10));

/**
 * The prompt's entity candidates: what the statement reader finds, and its words and word pairs,
 * a two-letter abbreviation also spelled out ("staging db" → "staging database").
 */
export function promptEntityKeys(prompt: string): readonly string[] {
  // A recall asks for the same prompt's keys three times (the entity leg, the facts stage, the
  // newest-first order): read once (the reading costs ~0.1 ms), kept for the last few prompts.
  const known = keysOf.get(prompt);
  if (known) return known;
  if (keysOf.size >= KEYS_KEPT) keysOf.delete(keysOf.keys().next().value!);
  const keys = readEntityKeys(prompt);
  keysOf.set(prompt, keys);
  return keys;
}

/** The prompts whose entity keys are kept (a request reads them a few times, in one stretch). */
const KEYS_KEPT = 16;
const keysOf = new Map<string, readonly string[]>();

function readEntityKeys(prompt: string): readonly string[] {
  const keys = new Set(
    readStatement(prompt)
      .mentions.filter((m) => m.kind !== "value")
      .map((m) => m.key),
  );
  const words = promptWords(prompt);
  for (let i = 0; i < words.length; i++) {
    if (!isFrameWord(words[i]!)) for (const f of forms(words[i]!)) keys.add(f);
    if (i + 1 < words.length)
      for (const a of forms(words[i]!)) for (const b of forms(words[i + 1]!)) keys.add(`${a} ${b}`);
  }
  return [...keys].slice(0, MAX_KEYS);
}

/**
 * The keys facts look up: the prompt's entity keys, then, while room is left, its content words
 * paired in the other order too — a two-word name the prompt does not write side by side ("which
 * database server is staging on?" names "staging database"). Only slots in which something changed
 * answer (facts-repo.ts), so a pair that names nothing costs one index probe.
 */
function factKeys(prompt: string): string[] {
  const keys = new Set(promptEntityKeys(prompt));
  const words = promptWords(prompt);
  const content = [...new Set(words.filter((w) => !isFrameWord(w)).flatMap(forms))];
  for (const a of content)
    for (const b of content)
      if (a !== b && keys.size < MAX_KEYS && !a.includes(b) && !b.includes(a)) keys.add(`${a} ${b}`);
  return [...keys];
}

/**
 * Facts over time in recall: the statements about the entities the prompt names, linked in their
 * (entity, class) slots at index time, stand as of `asOf` (ms). A statement superseded by then — or
 * said after it, in a slot that had a value then — is left out of its memory (its line blanked),
 * or with `includeHistory` kept and marked `[superseded YYYY-MM-DD]`. Memories holding a current
 * statement of a slot that changed come first, and a current statement search did not return is
 * added (bounded). Other prompts pass through unchanged.
 */
export function applyFacts(
  store: IndexStore,
  hits: readonly AnnotatedHit[],
  prompt: string,
  opts: {
    asOf: number;
    includeHistory: boolean;
    /** The entities the prompt names (entity-leg.ts promptEntities), read when a slot changed: a question for one's value is answered by its current statement. */
    named?: () => readonly string[];
    /** Whether a current statement search did not return may be added (the request's scope: recall-scope.ts). */
    mayAdd?: (hit: AnnotatedHit) => boolean;
  },
): FactsStage {
  const entities = store.facts.slotEntities(factKeys(prompt));
  // Only the slots in which something changed (facts-repo.ts): a prompt reads tens of rows.
  const rows = entities.length === 0 ? [] : store.facts.slotsOf(entities);
  if (rows.length === 0 && !hits.some((h) => timesStated(h, 1) > 1))
    return { hits: [...hits], entities, links: [], answers: new Set() };
  const chains = new Map<string, SlotRow[]>();
  for (const r of rows) {
    const key = `${r.entity}\u0000${r.cls}`;
    let c = chains.get(key);
    if (!c) chains.set(key, (c = []));
    c.push(r);
  }
  const verdicts = new Map<string, Verdict>();
  const links: FactLink[] = [];
  const changed: SlotRow[] = [];
  for (const chain of chains.values()) {
    if (new Set(chain.flatMap((r) => r.news)).size > MAX_VALUES) continue;
    const byId = new Map(chain.map((r) => [r.statement, r]));
    const stood = standings(chain, opts.asOf);
    if (!stood.some((s) => s.supersededBy || s.later)) continue;
    for (const s of stood) record(verdicts, byId.get(s.statement)!, s, byId, links);
    for (const s of stood) if (s.current) changed.push(byId.get(s.statement)!);
  }
  const stated = restatements(chains.values(), opts.asOf);
  const currentPlaces = new Set(changed.map((r) => `${r.path}:${r.line}`));
  // The entities a question may ask a value of: those the prompt names, and the slot entities of
  // several words or an identifier's form it writes ("the staging database", "billing-api").
  const asked = () => [...new Set([...(opts.named?.() ?? []), ...entities.filter((e) => /[\s\-_\d]/.test(e))])];
  const answering = answeringStatements(prompt, asked, changed, (r) =>
    chains.get(`${r.entity}\u0000${r.cls}`)!.filter((c) => (c.at ?? -Infinity) <= opts.asOf),
  );
  const answerPlaces = new Set(answering.map((r) => `${r.path}:${r.line}`));
  // The older lines about an answered entity that state another value of the asked kind (answer-outdated.ts).
  const outdated = outdatedBesideAnswers(answering, hits, (p, f, t) => store.facts.statementsIn(p, f, t), {
    asOf: opts.asOf,
    keep: new Set([...currentPlaces, ...answerPlaces]),
  });
  for (const [place, o] of outdated) {
    if (verdicts.get(place)?.current) continue;
    verdicts.set(place, { row: o.by, hidden: true, current: false, ...(o.later ? {} : { by: o.by }) });
    const on = day(o.by.at);
    links.push({
      entity: o.by.entity,
      statement: place,
      ...(o.later ? { later: true } : { supersededBy: `${o.by.path}:${o.by.line}`, ...(on ? { on } : {}) }),
    });
  }
  const out: Array<{ hit: AnnotatedHit; current: boolean; times: number; answer?: boolean }> = [];
  for (const hit of hits) {
    const text = hit.text;
    if (text === undefined) {
      out.push({ hit, current: false, times: timesStated(hit, 1) });
      continue;
    }
    const lines = text.split("\n");
    let current = false;
    let answer = false;
    let edited = false;
    let times = 1;
    for (const u of units(text)) {
      const place = `${hit.path}:${hit.startLine + u.line}`;
      if (currentPlaces.has(place)) current = true;
      if (answerPlaces.has(place)) answer = true;
      if (!verdicts.get(place)?.hidden) times = Math.max(times, stated.get(place) ?? 1);
      const v = verdicts.get(place);
      if (!v?.hidden) continue;
      edited = true;
      for (let i = u.line; i < u.line + u.lines; i++)
        lines[i] = opts.includeHistory ? mark(lines[i]!, i === u.line ? v : undefined) : "";
    }
    out.push({
      hit: edited ? { ...hit, text: lines.join("\n") } : hit,
      current,
      times: timesStated(hit, times),
      ...(answer ? { answer } : {}),
    });
  }
  // The current statements search missed: each as a memory of its own line.
  const covered = (r: SlotRow) =>
    out.some(({ hit }) => hit.path === r.path && hit.startLine <= r.line && r.line <= hit.endLine);
  const best = hits[0]?.score ?? 0;
  const missed = changed.filter((c) => !covered(c));
  // The statements answering the question are pulled before other current ones.
  missed.sort(
    (a, b) => Number(answerPlaces.has(`${b.path}:${b.line}`)) - Number(answerPlaces.has(`${a.path}:${a.line}`)),
  );
  let pulled = 0;
  for (const r of missed) {
    if (pulled >= MAX_PULLED) break;
    const hit: AnnotatedHit = {
      path: r.path,
      startLine: r.line,
      endLine: r.line,
      score: best,
      vectorScore: 0,
      textScore: 0,
      snippet: r.text,
      source: r.source,
      text: `- ${r.text}`,
      hash: r.hash,
      ...(r.source === "daily" && r.date ? { date: r.date } : r.at !== null ? { date: day(r.at)! } : {}),
    };
    // Not a memory the request may not show (a group's scope, a path the host has: recall-scope.ts).
    if (opts.mayAdd && !opts.mayAdd(hit)) continue;
    pulled++;
    out.push({
      hit,
      current: true,
      times: stated.get(`${r.path}:${r.line}`) ?? 1,
      ...(answerPlaces.has(`${r.path}:${r.line}`) ? { answer: true } : {}),
    });
  }
  // The memories answering the question, then those stating a current value of a changed slot,
  // at the best score (kept by the decision); within each part, a fact stated more often before
  // one said once (reinforcement.ts).
  const answers = new Set<AnnotatedHit>();
  const atBest = (o: { hit: AnnotatedHit; answer?: boolean }) => {
    const hit = { ...o.hit, score: Math.max(o.hit.score, best) };
    if (o.answer) answers.add(hit);
    return hit;
  };
  const first = [
    ...reinforcedOrder(out.filter((o) => o.answer)),
    ...reinforcedOrder(out.filter((o) => o.current && !o.answer)),
  ].map(atBest);
  const rest = reinforcedOrder(out.filter((o) => !o.current)).map((o) => o.hit);
  return { hits: [...first, ...rest], entities, links, answers };
}

function record(
  verdicts: Map<string, Verdict>,
  row: SlotRow,
  s: Standing,
  byId: ReadonlyMap<number, SlotRow>,
  links: FactLink[],
): void {
  const place = `${row.path}:${row.line}`;
  const prev = verdicts.get(place);
  const hidden = !!(s.supersededBy || s.later);
  const by = s.supersededBy ? byId.get(s.supersededBy.statement) : undefined;
  // A line current in one of its slots stays; one hidden in every slot it speaks to goes.
  const v: Verdict = prev
    ? { ...prev, hidden: prev.hidden && hidden, current: prev.current || !!s.current }
    : { row, hidden, current: !!s.current, ...(by ? { by } : {}) };
  if (!v.by && by) v.by = by;
  if (s.current) v.hidden = false;
  verdicts.set(place, v);
  if (hidden)
    links.push({
      entity: row.entity,
      statement: place,
      ...(by ? { supersededBy: `${by.path}:${by.line}`, ...(day(by.at) ? { on: day(by.at)! } : {}) } : {}),
      ...(s.later ? { later: true } : {}),
    });
}

function mark(line: string, v: Verdict | undefined): string {
  if (!v) return line;
  const on = v.by ? day(v.by.at) : undefined;
  const tag = v.by ? `[superseded${on ? ` ${on}` : ""}]` : "[later]";
  const m = /^(\s*(?:[-*+]|\d{1,3}[.)])\s+|User:\s+)?/.exec(line)!;
  return `${m[0]}${tag} ${line.slice(m[0].length)}`;
}

/**
 * The moment facts stand as of: the end of a past window the prompt names ("in March": the value
 * of that time), else the end of the `referenceDate` day (an ISO date-time: that moment), else the
 * end of today — a daily log's entry without a time is placed at its day's noon, and one written
 * this morning is said by now.
 */
export function factsAsOf(
  referenceDate: string | undefined,
  asOf: number,
  windows: ReadonlyArray<{ to: string }>,
): number {
  const endOf = (d: string) => Date.parse(`${d}T23:59:59.999Z`);
  const ref = !referenceDate
    ? Math.max(asOf, endOf(localDay(asOf)))
    : /^\d{4}-\d{2}-\d{2}$/.test(referenceDate)
      ? endOf(referenceDate)
      : asOf;
  const ends = windows.map((w) => endOf(w.to)).filter((t) => !Number.isNaN(t));
  const end = ends.length > 0 ? Math.max(...ends) : Infinity;
  return Math.min(ref, end);
}
