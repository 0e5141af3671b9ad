/**
 * The turns of the person a question asks about: a question gathering someone's doings over a
 * conversation ("what activities does Melanie partake in?", "what books has Tim read?") is answered
 * by that person's own turns, scattered over many sessions, each naming one of the things ("I just
 * signed up for a pottery class") and often sharing no word with the question. A chunk holds a dozen
 * turns of both speakers, so a few chunks (or their excerpts) show few of them. This leg lists the
 * named speaker's turns one by one over a deeper pool of candidates than recall packs: those holding
 * the question's words first (the rarer the words among the pool's turns, the earlier), then the
 * others in the search's order (the chunk's rank, then the turn's place in it).
 *
 * (Nearness in meaning was measured as a third key: the built-in model's cosine of a turn and the
 * question ranks the evidence turns of LoCoMo below the search's chunk order — docs: issue #29.)
 */
import type { AnnotatedHit } from "../consolidate/annotate.js";
import type { Unit } from "../ingest/units.js";
import type { ScannedText } from "./recall-scan.js";
import { namedSpeakerTurns, promptNames } from "./recall-speakers.js";
import { stem } from "./excerpt.js";
import { cleanMemoryText } from "./recall-clean.js";
import { formatMemoryLine } from "./recall-format.js";
import { countTokens } from "../ingest/tokens.js";
import type { Judged, Packed } from "./recall-select.js";

/** Turns listed per recall at most (a 60-chunk pool of ~15 turns fits). */
const MAX_TURNS = 1200;
/** Below this many tokens of room no turn fits (a line's date and path alone take about as many). */
const MIN_TURN_TOKENS = 16;

export interface Turn {
  hit: AnnotatedHit;
  unit: Unit;
  /** The rarity-weighted sum of the question's words (names aside) it holds. */
  score: number;
}

/**
 * The named speakers' turns of the pool's conversation chunks, best first (see above); empty when
 * the prompt names no speaker of them. `scanOf` gives a hit's units and the query stems each holds.
 * A turn that overlapping chunks both hold is listed once.
 */
export function speakerTurns(
  query: string,
  pool: readonly AnnotatedHit[],
  scanOf: (hit: AnnotatedHit) => ScannedText,
): Turn[] {
  const names = promptNames(query);
  if (names.size === 0) return [];
  const nameStems = new Set([...names].map((n) => stem(n)));
  const turns: { hit: AnnotatedHit; unit: Unit; held: string[] }[] = [];
  const seen = new Set<string>();
  for (const hit of pool) {
    const s = scanOf(hit);
    for (const i of namedSpeakerTurns(s.units, names)) {
      if (turns.length >= MAX_TURNS) break;
      const unit = s.units[i]!;
      const key = `${hit.path}\0${unit.text}`;
      if (seen.has(key)) continue;
      seen.add(key);
      turns.push({ hit, unit, held: [...s.held[i]!].filter((st) => !nameStems.has(st)) });
    }
  }
  const df = new Map<string, number>();
  for (const t of turns) for (const st of t.held) df.set(st, (df.get(st) ?? 0) + 1);
  const idf = (st: string) => Math.log(1 + turns.length / (1 + (df.get(st) ?? 0)));
  const out = turns.map((t) => ({ hit: t.hit, unit: t.unit, score: t.held.reduce((n, st) => n + idf(st), 0) }));
  // Stable: equal scores keep the search's order.
  return out.sort((a, b) => b.score - a.score);
}

/** A turn's memory was not judged on its own: it is there as the named speaker's. */
const SPEAKER_TURN: Judged["evidence"] = {
  coverage: 0,
  words: [],
  rareWords: [],
  vectorZ: null,
  keyword: false,
  vector: false,
};

/**
 * The turns (best first) that fit `room` tokens and that no packed memory shows (`shown`: a path
 * and a unit's text), as memories: the turns of one chunk in one line (in the chunk's order, a gap
 * shown as "…"), the chunks in the order of their best turn. Each turn shows its `gist`
 * (turn-gist.ts: what it says of its speaker), so more turns fit.
 */
export function packTurns(
  turns: readonly Turn[],
  shown: (path: string, text: string) => boolean,
  room: number,
  gist: (text: string) => string,
  workspace?: string,
): Packed[] {
  const gists = new Map<Unit, string>();
  const memoryOf = (hit: AnnotatedHit, ts: readonly Turn[]): Packed => {
    const us = ts.map((t) => t.unit).sort((a, b) => a.line - b.line);
    const first = us[0]!;
    const last = us[us.length - 1]!;
    const transcript = hit.source === "transcript";
    const startLine = transcript ? hit.startLine : Math.min(hit.endLine, hit.startLine + first.line);
    const endLine = transcript ? hit.endLine : Math.min(hit.endLine, hit.startLine + last.line + last.lines - 1);
    const text = cleanMemoryText(
      us
        .map((u, i) => {
          const said = gists.get(u) ?? u.text;
          return i > 0 && u.line > us[i - 1]!.line + us[i - 1]!.lines ? `…\n${said}` : said;
        })
        .join("\n"),
    );
    const line = formatMemoryLine({
      ...(workspace ? { workspace } : {}),
      path: hit.path,
      startLine,
      endLine,
      ...(hit.date ? { date: hit.date } : {}),
      text,
    });
    const judged = { hit, score: hit.score, evidence: SPEAKER_TURN, dateMatch: false, kept: true, reason: "" };
    return { judged, text, startLine, endLine, cost: countTokens(line) + 1, line };
  };
  const groups = new Map<AnnotatedHit, Turn[]>();
  let used = 0;
  for (const t of turns) {
    if (room - used < MIN_TURN_TOKENS) break;
    if (shown(t.hit.path, t.unit.text)) continue;
    if (!gists.has(t.unit)) gists.set(t.unit, gist(t.unit.text));
    const group = groups.get(t.hit) ?? [];
    const cost = memoryOf(t.hit, [...group, t]).cost - (group.length ? memoryOf(t.hit, group).cost : 0);
    if (used + cost > room) continue;
    used += cost;
    group.push(t);
    groups.set(t.hit, group);
  }
  return [...groups].map(([hit, ts]) => memoryOf(hit, ts));
}
