import type { RecallConfig } from "../config/schema.js";
import type { RecallExplain } from "../rpc/protocol.js";
import type { Judged, selectMemories } from "./recall-select.js";
import type { PromptProfile } from "./relevance.js";

/** Why each candidate was kept or dropped, for `explain` (recall.ts). */
export function explainOf(
  selection: ReturnType<typeof selectMemories>,
  packed: readonly { judged: Judged }[],
  cfg: RecallConfig,
  windows: RecallExplain["dates"],
  profile: PromptProfile,
  search: RecallExplain["search"],
): RecallExplain {
  const injected = new Set(packed.map((p) => p.judged));
  return {
    relevance: cfg.relevance,
    ...(selection.empty ? { empty: selection.empty } : {}),
    dates: windows.map((w) => ({ from: w.from, to: w.to, text: w.text })),
    gathering: selection.gathering,
    search,
    words: profile.words.map((w) => ({
      word: w.word,
      df: w.df,
      idf: Math.round(w.idf * 1e3) / 1e3,
      rare: w.rare,
      subject: w.subject,
    })),
    chunks: profile.chunks,
    nullSimilarity: profile.nullSim,
    candidates: selection.all.map((j) => ({
      ...(j.hit.visibility ? { visibility: j.hit.visibility } : {}),
      path: j.hit.path,
      startLine: j.hit.startLine,
      endLine: j.hit.endLine,
      score: Math.round(j.score * 1e4) / 1e4,
      kept: j.kept,
      injected: injected.has(j),
      reason:
        j.kept && !injected.has(j)
          ? `${j.reason}; not injected (budget spent, or it repeats an injected memory)`
          : j.reason,
      coverage: Math.round(j.evidence.coverage * 1e3) / 1e3,
      words: j.evidence.words,
      rareWords: j.evidence.rareWords,
      vectorZ: j.evidence.vectorZ === null ? null : Math.round(j.evidence.vectorZ * 100) / 100,
      dateMatch: j.dateMatch,
    })),
  };
}
