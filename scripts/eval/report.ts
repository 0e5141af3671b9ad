/** Turning a LoCoMo run into tables, summary lines and JSON. */
import { CATEGORY_NAMES, PRIMARY_CATEGORIES } from "./data.js";
import { aggregate, KS, macro, percentile, type Aggregate } from "./metrics.js";
import type { ModeRun, RunResult } from "./run.js";

export interface CategoryRow {
  category: number;
  name: string;
  agg: Aggregate;
}

export interface ModeSummary {
  mode: string;
  status: "ok" | "skipped";
  reason?: string;
  byCategory: CategoryRow[];
  /** Categories 1–4, every query once. */
  overallMicro?: Aggregate;
  /** Categories 1–4, mean of per-conversation figures. */
  overallMacro?: Aggregate;
  perConversation: { conv: string; agg: Aggregate }[];
  /** Category 5 (adversarial), scorable ones only; never part of the overall figures. */
  adversarial?: Aggregate;
  timing: {
    wallMs: number;
    indexMs: number;
    providerMs: number;
    queryMs: number;
    sharesIndexWith?: string;
    queries: number;
    p50Ms: number;
    p95Ms: number;
  };
  config: Record<string, unknown>;
  engineModes: Record<string, number>;
  ambiguousTexts: number;
}

const primary = new Set<number>(PRIMARY_CATEGORIES);

export function summarize(run: ModeRun, convIds: readonly string[]): ModeSummary {
  const prim = run.records.filter((r) => primary.has(r.category));
  const byCategory: CategoryRow[] = PRIMARY_CATEGORIES.map((c) => ({
    category: c,
    name: CATEGORY_NAMES[c]!,
    agg: aggregate(prim.filter((r) => r.category === c).map((r) => r.scores)),
  })).filter((row) => row.agg.n > 0);
  const perConversation = convIds
    .map((conv) => ({ conv, agg: aggregate(prim.filter((r) => r.conv === conv).map((r) => r.scores)) }))
    .filter((p) => p.agg.n > 0);
  const adv = run.records.filter((r) => r.category === 5);
  return {
    mode: run.mode,
    status: run.status,
    ...(run.reason ? { reason: run.reason } : {}),
    byCategory,
    ...(prim.length
      ? { overallMicro: aggregate(prim.map((r) => r.scores)), overallMacro: macro(perConversation.map((p) => p.agg)) }
      : {}),
    perConversation,
    ...(adv.length ? { adversarial: aggregate(adv.map((r) => r.scores)) } : {}),
    timing: {
      wallMs: run.indexMs + run.providerMs + run.queryMs,
      indexMs: run.indexMs,
      providerMs: run.providerMs,
      queryMs: run.queryMs,
      ...(run.sharesIndexWith ? { sharesIndexWith: run.sharesIndexWith } : {}),
      queries: run.records.length,
      p50Ms: percentile(run.latencies, 50),
      p95Ms: percentile(run.latencies, 95),
    },
    config: { ...run.config },
    engineModes: run.engineModes,
    ambiguousTexts: run.ambiguousTexts,
  };
}

/** .844 style (no leading zero), "-" for NaN. */
export function f3(x: number): string {
  if (!Number.isFinite(x)) return "-";
  const s = x.toFixed(3);
  return s.startsWith("0.") ? s.slice(1) : s;
}

function secs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`;
}

function msFmt(ms: number): string {
  return Number.isFinite(ms) ? `${ms.toFixed(ms < 10 ? 2 : 1)} ms` : "-";
}

const HEAD = [
  "category",
  "n",
  ...KS.map((k) => `hit@${k}`),
  "R@10",
  "MRR",
  "chars/res",
  "budgetR",
  "injected",
  "empty",
];

/** One table row; hit@k and R@k for k beyond the result limit are "-" (they would repeat hit@limit). */
function row(label: string, n: string, a: Aggregate, limit: number): string[] {
  const upTo = (k: number, x: number) => (k <= limit ? f3(x) : "-");
  return [
    label,
    n,
    ...KS.map((k) => upTo(k, a.hit[k])),
    upTo(10, a.recall[10]),
    f3(a.mrr),
    Number.isFinite(a.charsPerResult) ? a.charsPerResult.toFixed(0) : "-",
    f3(a.budgetRecall),
    Number.isFinite(a.injectedChars) ? a.injectedChars.toFixed(0) : "-",
    Number.isFinite(a.emptyRecalls) ? f3(a.emptyRecalls) : "-",
  ];
}

function layout(rows: (string[] | "rule")[]): string {
  const cells = rows.filter((r): r is string[] => r !== "rule");
  const widths = HEAD.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  return rows.map((r) => (r === "rule" ? rule : line(r))).join("\n");
}

export function formatModeTable(
  s: ModeSummary,
  ctx: { variant: string; convs: number; limit: number; budgetChars: number },
): string {
  const weights =
    s.mode === "keyword" ? "" : ` · weights vector ${s.config.vectorWeight} / text ${s.config.textWeight}`;
  const fusion = s.config.fusion !== undefined ? ` · fusion ${String(s.config.fusion)}` : "";
  const title = `== ${s.mode} · ${ctx.variant}/ · ${ctx.convs} conversation${ctx.convs === 1 ? "" : "s"} · ${ctx.limit} results/query · budget ${ctx.budgetChars} chars${weights}${fusion} ==`;
  if (s.status === "skipped") return `${title}\nskipped: ${s.reason}`;
  const rows: (string[] | "rule")[] = [HEAD, "rule"];
  for (const c of s.byCategory) rows.push(row(`${c.category} ${c.name}`, String(c.agg.n), c.agg, ctx.limit));
  if (s.overallMicro && s.overallMacro) {
    rows.push("rule");
    rows.push(row("overall 1-4 (micro)", String(s.overallMicro.n), s.overallMicro, ctx.limit));
    rows.push(row("overall 1-4 (macro/conv)", `${s.perConversation.length}c`, s.overallMacro, ctx.limit));
  }
  if (s.adversarial) {
    rows.push("rule");
    rows.push(row("5 adversarial (NOT in overall)", String(s.adversarial.n), s.adversarial, ctx.limit));
  }
  const perConv = s.perConversation.map((p) => `${p.conv} ${f3(p.agg.budgetRecall)}`).join(" · ");
  const t = s.timing;
  const idx = t.sharesIndexWith
    ? `index shared with ${t.sharesIndexWith}`
    : `index ${secs(t.indexMs)}${t.providerMs ? ` + model load ${secs(t.providerMs)}` : ""}`;
  return [
    title,
    layout(rows),
    `budgetR by conversation (1-4): ${perConv}`,
    `time: wall ${secs(t.wallMs)} (${idx}, ${t.queries} queries ${secs(t.queryMs)}) · search latency p50 ${msFmt(t.p50Ms)}, p95 ${msFmt(t.p95Ms)}`,
  ].join("\n");
}

export function formatSummaryLine(s: ModeSummary, budgetChars: number, limit: number): string {
  if (s.status === "skipped") return `${s.mode.padEnd(7)}: skipped: ${s.reason}`;
  const o = s.overallMicro;
  const m = s.overallMacro;
  if (!o || !m) return `${s.mode.padEnd(7)}: no category 1-4 queries`;
  return (
    `${s.mode.padEnd(7)}: HEADLINE budgeted recall@${budgetChars}ch ${f3(o.budgetRecall)} (cat 1-4, n=${o.n}; macro ${f3(m.budgetRecall)}) · injected ${Number.isFinite(o.injectedChars) ? o.injectedChars.toFixed(0) : "-"} chars/question · empty recalls ${Number.isFinite(o.emptyRecalls) ? `${(o.emptyRecalls * 100).toFixed(1)}% (${Math.round(o.emptyRecalls * o.n)})` : "-"}` +
    ` · hit@10 ${limit >= 10 ? f3(o.hit[10]) : "-"} · MRR ${f3(o.mrr)} · wall ${secs(s.timing.wallMs)} · p50 ${msFmt(s.timing.p50Ms)} p95 ${msFmt(s.timing.p95Ms)}`
  );
}

export function formatReport(result: RunResult): string {
  const convIds = result.conversations.map((c) => c.id);
  const summaries = result.modes.map((m) => summarize(m, convIds));
  const o = result.options;
  const ctx = { variant: o.variant, convs: convIds.length, limit: o.limit, budgetChars: o.budgetChars };
  const out: string[] = [];
  out.push(
    `LoCoMo retrieval · ${o.dir} · variant ${o.variant}/ · conversations ${convIds.join(", ")} · chunking ${o.chunking.maxTokens}/${o.chunking.overlapTokens} tokens`,
  );
  if (result.provider) {
    const p = result.provider;
    out.push(
      `embedding: ${p.state}${p.model ? ` ${p.model}` : ""}${p.dims ? ` (${p.dims}d)` : ""}${p.reason ? ` — ${p.reason}` : ""}`,
    );
  }
  for (const kind of ["keyword", "vector"] as const) {
    const xs = result.indexes.filter((i) => i.kind === kind);
    if (!xs.length) continue;
    const chunks = xs.reduce((s, i) => s + i.chunks, 0);
    const chars = xs.reduce((s, i) => s + i.meanChunkChars * i.chunks, 0);
    const ms = xs.reduce((s, i) => s + i.ms, 0);
    const extra =
      kind === "vector"
        ? `, ${xs.reduce((s, i) => s + i.vectors, 0)} vectors, ${xs.reduce((s, i) => s + i.noVector, 0)} without`
        : "";
    const odd = xs.reduce((s, i) => s + i.skipped + i.malformed, 0);
    const turns = xs.reduce((s, i) => s + i.turns, 0);
    const covered = xs.reduce((s, i) => s + i.turnsCovered, 0);
    out.push(
      `${kind} indexes: ${xs.length} × (${xs.reduce((s, i) => s + i.files, 0)} files total), ${chunks} chunks, mean ${(chars / Math.max(1, chunks)).toFixed(0)} chars${extra}, built in ${secs(ms)}${odd ? `, ${odd} skipped/malformed` : ""}; turn markers indexed ${covered}/${turns}`,
    );
  }
  for (const n of result.notes) out.push(`note: ${n}`);
  for (const s of summaries) {
    out.push("");
    out.push(formatModeTable(s, ctx));
    const modes = Object.entries(s.engineModes);
    const expected = s.mode === "keyword" ? "keyword" : "hybrid";
    const odd = modes.filter(([m]) => m !== expected);
    if (odd.length)
      out.push(
        `warning: engine-reported modes ${modes.map(([m, n]) => `${m}×${n}`).join(", ")} (expected ${expected})`,
      );
    if (s.ambiguousTexts) out.push(`warning: ${s.ambiguousTexts} results could not be matched to a unique chunk text`);
  }
  out.push("");
  out.push(
    `summary (columns: hit@k = any evidence marker in the top k; R@10 = evidence recall@10; chars/res = mean characters per result; budgetR = evidence recall of memory.recall's context within ${Math.round(o.budgetChars / 4)} tokens; injected = mean characters of that context per question; empty = share of questions whose recall injected nothing, each a miss)`,
  );
  for (const s of summaries) out.push(formatSummaryLine(s, o.budgetChars, o.limit));
  out.push(`total wall ${secs(result.totalMs)}`);
  return out.join("\n");
}

export function toJson(result: RunResult, perQuery: boolean): unknown {
  const convIds = result.conversations.map((c) => c.id);
  const { tmpDir: _tmp, ...rest } = result;
  return {
    ...rest,
    modes: result.modes.map((m) => ({
      ...summarize(m, convIds),
      ...(perQuery
        ? {
            queries: m.records.map((r) => ({
              conv: r.conv,
              qid: r.qid,
              category: r.category,
              evidence: r.evidence,
              firstHit: r.scores.firstHit,
              budgetRecall: r.scores.budgetRecall,
              injectedChars: r.scores.injectedChars,
              recall10: r.scores.recall[10],
              results: r.scores.results,
              chars: r.scores.chars,
              latencyMs: Math.round(r.latencyMs * 1000) / 1000,
              engineMode: r.engineMode,
              ...(r.fallback ? { fallback: r.fallback } : {}),
            })),
          }
        : {}),
    })),
    ...(result.options.keep ? { tmpDir: result.tmpDir } : {}),
  };
}
