import type { SlotRow, StatementAt } from "../index/repos/facts-repo.js";
import { partOf } from "../facts/link.js";
import { readStatement, type Mention } from "../facts/mentions.js";
import type { AnnotatedHit } from "../consolidate/annotate.js";

/**
 * Beside the answer to a question for a value (fact-answers.ts), the older statements about the
 * same entity that state another value of the asked kind are outdated for that question, though no
 * slot links them: a name class is learned from changes and shared predicates only, so "Carmen
 * lives in Prague" is no value of the class "Munich → Madrid" learned from "Carmen relocated from
 * Munich to Madrid", and "Video call with Carmen from Prague" states nothing a slot reads. When a
 * question asks where Carmen is now and its answer is known, such a line said before the answer
 * is superseded by it, and one said after the moment the facts stand as of is later.
 */

/** How an outdated line stands: the answer that superseded it, or said after the moment. */
export interface Outdated {
  by: SlotRow;
  later: boolean;
}

/** A statement's values of the kind an answer states: its class for typed values, any other name for a name class. */
function ofKind(mentions: readonly Mention[], answer: SlotRow): Mention[] {
  if (!answer.cls.startsWith("name:")) return mentions.filter((m) => m.kind === "value" && m.cls === answer.cls);
  return mentions.filter((m) => m.kind === "name" && !partOf(m.key, answer.entity));
}

/**
 * The places (`path:line`) of the hits' statements outdated beside the answers: a statement that
 * names an answered entity, states none of the answer's values and another value of its kind,
 * said before the answer (an undated curated line counts as older than a dated answer) or after
 * `asOf`. `keep` holds places that stay (current statements, the answers themselves).
 */
export function outdatedBesideAnswers(
  answers: readonly SlotRow[],
  hits: readonly AnnotatedHit[],
  statementsIn: (path: string, from: number, to: number) => StatementAt[],
  opts: { asOf: number; keep: ReadonlySet<string> },
): Map<string, Outdated> {
  const out = new Map<string, Outdated>();
  if (answers.length === 0) return out;
  for (const hit of hits) {
    const text = hit.text?.toLowerCase();
    if (text === undefined || !answers.some((a) => text.includes(a.entity))) continue;
    for (const st of statementsIn(hit.path, hit.startLine, hit.endLine)) {
      const place = `${hit.path}:${st.line}`;
      if (opts.keep.has(place) || out.has(place)) continue;
      const lower = st.text.toLowerCase();
      if (!answers.some((a) => lower.includes(a.entity))) continue;
      const mentions = readStatement(st.text).mentions;
      // Outdated beside every answer about an entity it names: with several facts of one entity
      // answering ("which IDE does Dmitri use?" has no word a slot holds: his city and his manager
      // answer), a line is left out only when each of them makes it outdated.
      let verdict: Outdated | undefined;
      for (const a of answers) {
        if (!mentions.some((m) => m.key === a.entity && m.kind !== "value")) continue;
        const values = ofKind(mentions, a);
        const later = st.at !== null && st.at > opts.asOf;
        const before = a.at !== null && (st.at === null || st.at < a.at);
        if (values.length === 0 || values.some((v) => a.news.includes(v.key)) || !(later || before)) {
          verdict = undefined;
          break;
        }
        verdict ??= { by: a, later };
      }
      if (verdict) out.set(place, verdict);
    }
  }
  return out;
}
