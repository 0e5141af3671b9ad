import type { RecallConfig } from "../config/schema.js";
import type { AnnotatedHit } from "../consolidate/annotate.js";
import { inWindows, type DateWindow } from "./dates.js";
import { isGathering, spreadByGroup } from "./recall-gather.js";
import { judge, type Evidence, type PromptProfile } from "./relevance.js";
import type { WindowAnswer } from "./recall-window.js";
import { ticketKeysOf, sharedTicketKey } from "./ticket-keys.js";

/** A candidate with the decision about it. */
export interface Judged {
  hit: AnnotatedHit;
  /** The ranking score plus the date preference. */
  score: number;
  evidence: Evidence;
  dateMatch: boolean;
  /** Its date match is a day its text names, not its own date (date-mentions.ts). */
  namesDay?: true;
  kept: boolean;
  reason: string;
}

/** A kept memory as packed into the block: its shown text and lines, and its line as counted. */
export interface Packed {
  judged: Judged;
  text: string;
  startLine: number;
  endLine: number;
  /** Its tokens in the block (the line and its newline). */
  cost: number;
  /** Its line in the block (formatMemoryLine), as its cost was counted. */
  line: string;
}

export interface Selection {
  /** Kept candidates in packing order. */
  kept: Judged[];
  /** Every candidate considered, best first (for explain). */
  all: Judged[];
  gathering: boolean;
  /** Why nothing is kept, when nothing is. */
  empty?: string;
}

const f2 = (x: number | null) => (x === null ? "n/a" : x.toFixed(2));
const textOf = (j: Judged) => j.hit.text ?? j.hit.snippet;

/**
 * Which candidates recall injects, in which order: the date preference first (+ dateWeight to
 * memories dated in a window the prompt names), then the relevance decision (relevance.ts): none
 * relevant → nothing; else the relevant ones and those scoring within keepRatio of the best
 * relevant one that share something with the prompt (neighbours of a match that search ranks as high). A gathering prompt spreads them
 * over days/sessions. With relevance "off", every candidate is kept in rank order.
 */
export function selectMemories(
  hits: readonly AnnotatedHit[],
  profile: PromptProfile,
  cfg: RecallConfig,
  query: string,
  windows: readonly DateWindow[],
  opts: {
    /** The prompt's stems a hit's text holds (relevance.ts heldStems; recall-scan.ts reads them with the rest). */
    promptStems: (hit: AnnotatedHit) => ReadonlySet<string>;
    /** Write each candidate's reason (for explain; otherwise left empty). */
    explain: boolean;
    /** The prompt is an instruction about the work at hand (prompt-intent.ts): nothing is relevant. */
    instruction?: boolean;
    /** Memories stating the current value the prompt asks for (fact-answers.ts): relevant as such. */
    answers?: ReadonlySet<AnnotatedHit>;
    /** Whether a memory's text names a day the prompt names (date-mentions.ts): relevant as such. */
    namesDay?: (hit: AnnotatedHit) => boolean;
  },
): Selection {
  const namingDay = new Set<AnnotatedHit>();
  const judged: Judged[] = hits.map((hit) => {
    const dated = windows.length > 0 && !!hit.date && inWindows(hit.date, windows);
    if (!dated && windows.length > 0 && opts.namesDay?.(hit)) namingDay.add(hit);
    const dateMatch = dated || namingDay.has(hit);
    const evidence = judge(opts.promptStems(hit), hit.vectorScore, profile, cfg);
    const score = hit.score + (dateMatch ? cfg.dateWeight : 0);
    return {
      hit,
      score,
      evidence,
      dateMatch,
      ...(namingDay.has(hit) ? { namesDay: true as const } : {}),
      kept: false,
      reason: "",
    };
  });
  judged.sort((a, b) => b.score - a.score);
  const gathering = isGathering(query);
  if (cfg.relevance === "off") {
    for (const j of judged) {
      j.kept = true;
      if (opts.explain) j.reason = "relevance off";
    }
    return { kept: order(judged, gathering, cfg), all: judged, gathering };
  }
  const answers = opts.answers ?? new Set<AnnotatedHit>();
  // A memory dated in the window the prompt names needs only half the evidence.
  const byEvidence = (j: Judged) =>
    j.evidence.keyword ||
    j.evidence.vector ||
    (j.dateMatch &&
      ((j.evidence.rareWords.length > 0 && j.evidence.coverage >= cfg.minCoverage / 2) ||
        (j.evidence.vectorZ ?? 0) >= cfg.vectorZ / 2));
  // A memory naming the day the prompt asks about ("plans for the 20th") is about that day.
  const relevant = (j: Judged) => answers.has(j.hit) || namingDay.has(j.hit) || byEvidence(j);
  if (opts.instruction) {
    const empty =
      "the prompt is an instruction about the work at hand, not a question of memory (no past reference, no exact token)";
    if (opts.explain) for (const j of judged) j.reason = `not relevant: ${empty}`;
    return { kept: [], all: judged, gathering, empty };
  }
  // A prompt naming one of the memory's subjects is about it: the ranking then decides.
  const best = judged.find(relevant) ?? (profile.subjects.length > 0 ? judged[0] : undefined);
  if (!best) {
    const cov = Math.max(0, ...judged.map((j) => j.evidence.coverage));
    const z = judged.some((j) => j.evidence.vectorZ !== null)
      ? Math.max(...judged.map((j) => j.evidence.vectorZ ?? -Infinity))
      : null;
    const empty =
      judged.length === 0
        ? "no candidate memories"
        : `no memory matches the prompt: best word coverage ${f2(cov)} (needs ${cfg.minCoverage} with a topical word), best vector z ${f2(z)} (needs ${cfg.vectorZ}), and it names none of the memory's subjects`;
    if (opts.explain) for (const j of judged) j.reason = describe(j, cfg, "not relevant");
    return { kept: [], all: judged, gathering, empty };
  }
  // Neighbours of a match: memories that search ranks nearly as high and that show some evidence
  // of their own (a word of the prompt, half the vector z, or the prompt's date); a memory sharing
  // nothing with the prompt is not kept for ranking near one that does, however small the memory.
  const floor = best.score * cfg.keepRatio;
  // …or a ticket key a relevant memory names ("INC-4821": the incident the postmortem is about).
  const ids = new Set<string>();
  for (const j of judged) if (relevant(j)) for (const id of ticketKeysOf(textOf(j))) ids.add(id);
  const shared = new Map<Judged, string>();
  for (const j of ids.size > 0 ? judged : []) {
    const id = relevant(j) ? null : sharedTicketKey(textOf(j), ids);
    if (id) shared.set(j, id);
  }
  const someEvidence = (j: Judged) =>
    j.evidence.words.length > 0 ||
    (j.evidence.vectorZ ?? -Infinity) >= cfg.vectorZ / 2 ||
    j.dateMatch ||
    shared.has(j) ||
    (!relevant(best) && profile.subjects.length > 0);
  for (const j of judged) {
    const isRelevant = relevant(j);
    j.kept = isRelevant || (j.score >= floor && someEvidence(j));
    if (!opts.explain) continue;
    if (isRelevant && answers.has(j.hit))
      j.reason = `relevant: states the current value the question asks for (facts over time); ${describe(j, cfg, "and")}`;
    else if (isRelevant && namingDay.has(j.hit))
      j.reason = `relevant: names a day the prompt asks about; ${describe(j, cfg, "and")}`;
    else if (isRelevant) j.reason = describe(j, cfg, "relevant");
    else if (j.kept)
      j.reason = `${describe(j, cfg, "kept")}; score ${f2(j.score)} ≥ ${cfg.keepRatio} × best ${f2(best.score)}${shared.has(j) ? `, names ${shared.get(j)!} as a relevant memory does` : ""}${relevant(best) ? "" : ` (the prompt names the memory's subject: ${profile.subjects.join(", ")})`}`;
    else if (j.score >= floor)
      j.reason = `${describe(j, cfg, "dropped")}; score ${f2(j.score)} ≥ ${cfg.keepRatio} × best ${f2(best.score)} but shares nothing with the prompt`;
    else j.reason = `${describe(j, cfg, "dropped")}; score ${f2(j.score)} < ${cfg.keepRatio} × best ${f2(best.score)}`;
  }
  return {
    kept: order(
      judged.filter((j) => j.kept),
      gathering,
      cfg,
    ),
    all: judged,
    gathering,
  };
}

/**
 * The selection of a time prompt answered from its window (recall-window.ts): every memory of the
 * answer is kept, in its spread order; the relevance decision is not asked (the prompt names the
 * window, not a topic to weigh).
 */
export function selectWindow(
  answer: WindowAnswer,
  hits: readonly AnnotatedHit[],
  profile: PromptProfile,
  cfg: RecallConfig,
  opts: { promptStems: (hit: AnnotatedHit) => ReadonlySet<string>; explain: boolean },
): Selection {
  const why = answer.topic.length
    ? `dated in the prompt's window and holds one of: ${answer.topic.join(", ")}`
    : "dated in the prompt's window (the prompt names no topic)";
  const kept: Judged[] = hits.map((hit) => ({
    hit,
    score: hit.score,
    evidence: judge(opts.promptStems(hit), hit.vectorScore, profile, cfg),
    dateMatch: true,
    kept: true,
    reason: opts.explain ? `${why}; ${answer.total} such memories` : "",
  }));
  return { kept, all: kept, gathering: false };
}

/** The window's memories, then the other selection's kept memories that are not among them. */
export function withWindowFirst(window: Selection, rest: Selection): Selection {
  const key = (j: Judged) => `${j.hit.path}:${j.hit.startLine}`;
  const inWindow = new Set(window.kept.map(key));
  const others = rest.all.filter((j) => !inWindow.has(key(j)));
  return {
    kept: [...window.kept, ...rest.kept.filter((j) => !inWindow.has(key(j)))],
    all: [...window.all, ...others],
    gathering: rest.gathering,
  };
}

function order(kept: Judged[], gathering: boolean, cfg: RecallConfig): Judged[] {
  return gathering ? spreadByGroup(kept, (j) => j.hit.date ?? j.hit.path, cfg.gatherPerDay) : kept;
}

function describe(j: Judged, cfg: RecallConfig, verdict: string): string {
  const e = j.evidence;
  const parts = [
    `word coverage ${f2(e.coverage)}${e.rareWords.length ? ` (topical: ${e.rareWords.slice(0, 5).join(", ")})` : " (no topical word)"}${e.keyword ? " ≥ " : " < "}${cfg.minCoverage}`,
    `vector z ${f2(e.vectorZ)}${e.vector ? " ≥ " : " < "}${cfg.vectorZ}`,
  ];
  // A day the text names is said by the reason itself ("names a day the prompt asks about").
  if (j.dateMatch && !j.namesDay) parts.push(`dated ${j.hit.date}, in the prompt's window`);
  return `${verdict}: ${parts.join("; ")}`;
}
