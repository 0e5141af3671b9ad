import { RecallSchema, type RecallConfig } from "../config/schema.js";
import type { IndexStore } from "../index/repos/store.js";
import { readConsistently, type ReadSnapshot } from "../index/db/read-snapshot.js";
import type { RecallResult, RecalledMemory } from "../rpc/protocol.js";
import { chunkHash, sha256 } from "../util/hash.js";
import { BLOCK_TOKENS, recallBlock, type RecallLine, type RecallLines } from "./recall-format.js";
import { selectMemories, selectWindow, withWindowFirst, type Packed } from "./recall-select.js";
import { timeOrder, windowHits, windowMemories, withoutTimeFrame } from "./recall-window.js";
import { asksForMany, isInstruction, namesSomething, speaksOfOwn } from "./prompt-intent.js";
import { exactAnchors } from "./exact.js";
import { softlyHeld, weighSoftWords, withSoftWords } from "./soft-words.js";
import { profilePrompt } from "./relevance.js";
import { keywordCounts, nothingCanMatch } from "./recall-no-topic.js";
import { dayNamer } from "./date-mentions.js";
import { parseDates } from "./dates.js";
import { referenceTime } from "./as-of.js";
import type { Searcher } from "./searcher.js";
import { contentStems } from "./excerpt.js";
import { textScanner, type ScannedText } from "./recall-scan.js";
import { applyConsolidation, type AnnotatedHit } from "../consolidate/annotate.js";
import { StageTimer } from "./stage-timer.js";
import { collapseConflictCopies } from "./recall-copies.js";
import { applyFacts, factsAsOf } from "./recall-facts.js";
import { promptEntities } from "./entity-leg.js";
import { newestFirstFor, SUBJECT_SHARE } from "./recall-order.js";
import { scopedStats, visibleIds } from "./scoped-stats.js";
import { mayShow } from "./recall-scope.js";
import { explainOf } from "./recall-explain.js";
import { promptNames } from "./recall-speakers.js";
import { packTurns, speakerTurns } from "./recall-turns.js";
import { turnGist } from "./turn-gist.js";
import { pack, WINDOW_PACKING } from "./recall-pack.js";

export const DEFAULT_RECALL_BUDGET = 2000;
const DEFAULT_RECALL_CONFIG = RecallSchema.parse({});
/** Candidates searched for a question gathering someone's doings: the pool of their turns (recall-turns.ts). */
const TURN_POOL = 60;
/** Chunks shown (whole) before the named speaker's turns fill the rest of the budget. */
const TURN_LEG_CHUNKS = 1;

export interface RecallRequest {
  query: string;
  budgetTokens?: number;
  /** group: never MEMORY.md / USER.md (private, curated). */
  scope?: "private" | "group";
  /** Only memories of these visibilities (a group's scope: visibility/visibility.ts); absent: all. */
  visible?: readonly string[];
  /** Candidates considered before packing (default 30). */
  limit?: number;
  /** Record access (default true): recall has this side effect, search does not. */
  record?: boolean;
  /** Also show superseded memories (marked); default: current facts only. */
  includeHistory?: boolean;
  /** Never MEMORY.md / USER.md, whatever the scope: the host already has them in its prompt. */
  excludeCurated?: boolean;
  /** Recall only from memory files ("files") or past transcripts ("transcripts"); default both. */
  sources?: readonly ("files" | "transcripts")[];
  /** Leave out the hits whose path this says the host already has (workspace/claude-code-loaded.ts). */
  excludePath?: (path: string) => boolean;
  /** Return the wall time of each stage (the search's stages, consolidation, relevance, select, pack, record). */
  timings?: boolean;
  /** Say why each memory was kept or dropped. */
  explain?: boolean;
  /** The day the recall is as of (YYYY-MM-DD or ISO date-time): relative dates, recency and supersession count from it; default now. */
  referenceDate?: string;
  /** A team (shared) workspace's name, shown before each path (and counted in the budget). */
  workspaceLabel?: string;
  /** The `recall` config section (default: its defaults). */
  config?: RecallConfig;
  /** Wall clock (default Date.now), for relative dates, recency and supersession without a referenceDate. */
  now?: () => number;
}

/**
 * Recall: the relevant memories for a query that fit a token budget, formatted for a model — or
 * nothing when none is relevant (recall-select, relevance). Near duplicates (≥ 0.75 of a memory's
 * words said by one packed before, recall-overlap.ts) collapse to the best-ranked one; the last
 * memory that does not fit whole is cut to the remaining budget. Records which memories were
 * injected for which query (promotion counts them).
 */
export async function recall(searcher: Searcher, store: IndexStore, req: RecallRequest): Promise<RecallResult> {
  return recallBlock(await recallLines(searcher, store, req));
}

/** Recall's answer as structured lines, for a caller that merges several before the block is formatted (recall-shared.ts). */
export async function recallLines(searcher: Searcher, store: IndexStore, req: RecallRequest): Promise<RecallLines> {
  // One state of the index for the whole recall, its search included (index/db/read-snapshot.ts).
  return readConsistently(
    () => store.readSnapshot(),
    (snap) => recallOn(snap, searcher, store, req),
  );
}

async function recallOn(
  snap: ReadSnapshot,
  searcher: Searcher,
  store: IndexStore,
  req: RecallRequest,
): Promise<RecallLines> {
  const budget = req.budgetTokens ?? DEFAULT_RECALL_BUDGET;
  const cfg = req.config ?? DEFAULT_RECALL_CONFIG;
  const timer = new StageTimer();
  // The search's embedding of the query, for the relevance decision's vector null (not embedded twice).
  let queryVector: Float32Array | undefined;
  const asOf = referenceTime(req.referenceDate, req.now);
  const reference = req.referenceDate ?? new Date((req.now ?? Date.now)());
  const windows = parseDates(req.query, reference);
  if (nothingCanMatch(req, cfg, windows, searcher, store)) {
    timer.lap("relevance");
    return { lines: [], ...(req.timings ? { timings: timer.result() } : {}) };
  }
  const limit = req.limit ?? 30;
  // A question gathering someone's doings searches deeper: their turns are listed one by one (recall-turns.ts).
  const gathersTurns = asksForMany(req.query) && promptNames(req.query).size > 0;
  const res = await searcher.search(
    {
      query: req.query,
      now: asOf,
      limit: gathersTurns ? Math.max(limit, TURN_POOL) : limit,
      fullText: true,
      // Who may see each memory is shown by recall's explain only (the audit reads it by lines).
      ...(req.explain ? { withVisibility: true } : {}),
      onQueryVector: (v) => (queryVector = v),
      // Only the vector leg can find such a prompt a memory (recall-no-topic.ts).
      ...(keywordCounts(req, cfg, windows) ? {} : { keyword: false }),
      ...(req.timings ? { timings: true } : {}),
      ...(req.visible ? { visible: req.visible } : {}),
    },
    snap,
  );
  snap.enter();
  timer.lap("search");
  // A narrower scope decides (and explains) with the statistics of what it may see only.
  const seen = req.visible ? scopedStats(store, req.visible) : store;
  const shows = mayShow(store, req);
  let hits: AnnotatedHit[] = res.results.filter((h) => shows(h));
  // Hook: a file and its conflict copies show each line once (search/recall-copies.ts).
  hits = collapseConflictCopies(hits);
  const consolidation = {
    includeHistory: req.includeHistory ?? false,
    ...(req.referenceDate ? { asOf: new Date(asOf).toISOString().slice(0, 10) } : {}),
  };
  hits = applyConsolidation(store, hits, consolidation);
  // The deeper pool is for the named speaker's turns only; the rest of recall sees what it always did.
  const pool = hits;
  hits = hits.slice(0, limit);
  timer.lap("consolidation");
  // The entities the prompt names (none of them what the whole workspace is about), read when needed.
  let names: string[] | undefined;
  const named = () => (names ??= promptEntities(store, req.query, SUBJECT_SHARE, snap).found.map((e) => e.entity));
  // Facts over time: superseded statements out (or marked), current ones first, answers (fact-answers.ts).
  const facts = applyFacts(store, hits, req.query, {
    asOf: factsAsOf(req.referenceDate, asOf, windows),
    includeHistory: consolidation.includeHistory,
    named,
    mayAdd: (h) => shows(h, true),
  });
  hits = facts.hits;
  timer.lap("facts");
  // The words of a date ("last week") are the date preference's, not topic words.
  const topic = windows.reduce((q, w) => q.split(w.text).join(" "), req.query);
  const prompt = await profilePrompt(
    topic,
    req.query,
    seen,
    res.mode === "keyword" ? null : searcher.provider,
    cfg,
    queryVector,
  );
  snap.enter();
  timer.lap("relevance");
  // Each candidate's text is read once, for the decision and the packing (recall-scan.ts).
  const queryStems = new Set(contentStems(req.query));
  const scanner = textScanner({ query: queryStems, prompt: new Set(prompt.words.map((w) => w.stem)) });
  // The prompt's specific words the index lacks, held by a candidate through another word for them.
  const soft = await softlyHeld(
    res.mode === "keyword" ? null : searcher.provider,
    prompt.words,
    hits.map((h) => h.text ?? h.snippet),
    speaksOfOwn(req.query),
  );
  // A time question's frame ("what did I work on …") names no topic, in its window or elsewhere.
  const weighed = weighSoftWords(prompt, soft);
  const profile = windows.length > 0 ? withoutTimeFrame(weighed) : weighed;
  snap.enter();
  const softOf = new Map(hits.map((h, i) => [h, soft[i]!]));
  const scans = new Map<AnnotatedHit, ScannedText>();
  const scanOf = (hit: AnnotatedHit): ScannedText => {
    let s = scans.get(hit);
    if (!s) scans.set(hit, (s = withSoftWords(scanner(hit.text ?? hit.snippet), softOf.get(hit))));
    return s;
  };
  const promptStems = (hit: AnnotatedHit): ReadonlySet<string> => scanOf(hit).promptStems;
  timer.lap("soft");
  const judging = { promptStems, explain: req.explain ?? false };
  // A prompt about a time is answered from the memories dated in its window (recall-window.ts).
  const answer = windowMemories(
    store,
    windows,
    profile.words,
    req.visible ? visibleIds(store, req.visible) : undefined,
  );
  if (answer) answer.hits = answer.hits.filter((h) => shows(h));
  // A memory naming the day asked about, whatever its own date ("tickets for the 20th"; date-mentions.ts).
  const daysNamed = windows.length > 0 ? dayNamer(req.query, reference, windows) : null;
  const ranked = () =>
    selectMemories(hits, profile, cfg, req.query, windows, {
      ...judging,
      answers: facts.answers,
      ...(daysNamed ? { namesDay: (h: AnnotatedHit) => daysNamed(h.text ?? h.snippet, h.date) } : {}),
      instruction:
        isInstruction(req.query) &&
        !exactAnchors(store, req.query, searcher.config.exactChunks).some((a) => namesSomething(a.term)),
    });
  // No topic: the window itself. A topic: the window's memories of it first, then what ranking
  // keeps from elsewhere (a date in a question is often the date of a mention, not of the event).
  const selection = !answer
    ? ranked()
    : answer.topic.length === 0
      ? selectWindow(answer, windowHits(store, answer.hits, hits, false, consolidation), profile, cfg, judging)
      : withWindowFirst(
          selectWindow(answer, windowHits(store, answer.hits, hits, true, consolidation), profile, cfg, judging),
          ranked(),
        );
  timer.lap("select");
  // A window's memories without a topic are the window itself: shown whole, in time order.
  const wholeWindow = answer !== null && answer.topic.length === 0;
  // Once something is relevant (the gate stays), a question gathering a speaker's doings shows the
  // best chunk, then that speaker's turns (recall-turns.ts).
  const turns = gathersTurns && !wholeWindow && selection.kept.length > 0 ? speakerTurns(req.query, pool, scanOf) : [];
  let packed = pack(
    turns.length > 0 ? selection.kept.slice(0, TURN_LEG_CHUNKS) : selection.kept,
    req.query,
    queryStems,
    (j) => scanOf(j.hit),
    budget,
    wholeWindow
      ? WINDOW_PACKING
      : { wholeTop: cfg.wholeTop, duplicateOverlap: 0.75, matchingEntries: true, speakers: true },
    req.workspaceLabel,
  );
  const room = budget - packed.reduce((n, k) => n + k.cost, BLOCK_TOKENS);
  const shown = (path: string, text: string) => packed.some((k) => k.judged.hit.path === path && k.text.includes(text));
  if (turns.length > 0)
    packed.push(...packTurns(turns, shown, room, (text) => turnGist(text, queryStems), req.workspaceLabel));
  if (wholeWindow) packed = packed.sort((a, b) => timeOrder(a.judged.hit, b.judged.hit));
  // A prompt about someone or something (not a past window): what is said of it now, first (recall-order.ts).
  else if (windows.length === 0 && !req.visible) {
    const view = (k: Packed) => ({
      text: k.text,
      date: k.judged.hit.date,
      chunkWords: k.judged.evidence.words,
      answer: facts.answers.has(k.judged.hit),
    });
    packed = newestFirstFor(packed, { query: req.query, entities: named(), words: profile.words }, view);
  }
  const memories: RecalledMemory[] = packed.map((k) => ({
    path: k.judged.hit.path,
    startLine: k.startLine,
    endLine: k.endLine,
    score: k.judged.hit.score,
    text: k.text,
    ...(k.judged.hit.date ? { date: k.judged.hit.date } : {}),
    ...(k.judged.hit.duplicates ? { duplicates: k.judged.hit.duplicates } : {}),
    ...(k.judged.hit.supersededBy ? { supersededBy: k.judged.hit.supersededBy } : {}),
  }));
  timer.lap("pack");
  if (req.record !== false && packed.length > 0) {
    // Written once the answer has gone (index/repos/recall-log.ts); the access log only feeds promotion, so
    // a full or read-only disk must not cost the agent its recall.
    store.recalls.recordLater(
      sha256(req.query.trim().toLowerCase()),
      packed.map(({ judged: { hit } }) => ({
        hash: hit.hash ?? chunkHash(hit.text ?? ""),
        path: hit.path,
        startLine: hit.startLine,
        endLine: hit.endLine,
      })),
    );
  }
  timer.lap("record");
  const out: RecallLines = {
    lines: packed.map((k, i): RecallLine => ({
      memory: memories[i]!,
      ...(req.workspaceLabel ? { workspace: req.workspaceLabel } : {}),
      cost: k.cost,
      text: k.line,
    })),
  };
  if (req.explain)
    out.explain = {
      ...explainOf(selection, packed, cfg, windows, profile, res.mode),
      facts: { entities: facts.entities, links: facts.links },
    };
  if (req.timings && res.timings) out.timings = { ...res.timings, ...timer.result() };
  return out;
}
