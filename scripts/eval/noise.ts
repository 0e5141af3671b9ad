/**
 * `npm run eval -- noise [options]`: prompts an agent gets all day that have nothing to do with its
 * memory ("fix this test", "thanks"), run through memory.recall against each LoCoMo development
 * workspace. A good recall injects nothing for them. Prints the share of prompts with an empty
 * context, the mean characters injected and the 95th percentile, per workspace and overall.
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ChunkingSchema, EmbeddingSchema, RecallSchema, SearchSchema } from "../../src/config/schema.js";
import { selectProvider } from "../../src/embed/select.js";
import { Searcher } from "../../src/search/searcher.js";
import { recall } from "../../src/search/recall.js";
import { parseArgs, stringFlag } from "./args.js";
import { loadConversations, makeWorkspace, type Variant } from "./data.js";
import { repoRoot } from "./locomo.js";
import { percentile } from "./metrics.js";
import { buildIndex } from "./run.js";

export const NOISE_USAGE = `noise — unrelated prompts against each LoCoMo workspace: how often recall injects nothing
  --prompts FILE     JSONL of {"prompt": …} (default <repo>/../shared/eval/noise/dev.jsonl)
  --locomo DIR       the LoCoMo set (default <repo>/../shared/eval/locomo)
  --variant memory|sessions   index memory/ (default) or sessions/
  --conv ID[,ID]     only these conversations
  --recall JSON      recall settings, e.g. '{"relevance":"off"}'
  --keyword          keyword-only (no embedding model)
  --dump FILE        append each prompt's recall explanation as JSONL
  --json             machine-readable output`;

interface Row {
  conv: string;
  prompt: string;
  chars: number;
}

function loadPrompts(file: string): string[] {
  if (!existsSync(file)) throw new Error(`noise prompts not found: ${file}`);
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l, i) => {
      const r = JSON.parse(l) as { prompt?: unknown };
      if (typeof r.prompt !== "string") throw new Error(`${file}:${i + 1}: expected {"prompt": "…"}`);
      return r.prompt;
    });
}

function summary(rows: readonly Row[]): { n: number; empty: number; meanChars: number; p95Chars: number } {
  const chars = rows.map((r) => r.chars);
  return {
    n: rows.length,
    empty: rows.length ? rows.filter((r) => r.chars === 0).length / rows.length : NaN,
    meanChars: rows.length ? chars.reduce((s, x) => s + x, 0) / rows.length : NaN,
    p95Chars: percentile(chars, 95),
  };
}

export async function noiseCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  const known = new Set(["prompts", "locomo", "variant", "conv", "recall", "keyword", "dump", "json", "help", "quiet"]);
  const unknown = Object.keys(args.flags).filter((k) => !known.has(k));
  if (unknown.length) throw new Error(`unknown option(s): ${unknown.map((k) => `--${k}`).join(", ")}\n${NOISE_USAGE}`);
  const root = repoRoot();
  const prompts = loadPrompts(resolve(stringFlag(args, "prompts") ?? join(root, "../shared/eval/noise/dev.jsonl")));
  const variant = (stringFlag(args, "variant") ?? "memory") as Variant;
  if (variant !== "memory" && variant !== "sessions")
    throw new Error(`--variant must be memory or sessions (got ${variant})`);
  const convIds = stringFlag(args, "conv")
    ?.split(",")
    .map((c) => c.trim())
    .filter(Boolean);
  const convs = loadConversations(resolve(stringFlag(args, "locomo") ?? join(root, "../shared/eval/locomo")), convIds);
  const recallJson = stringFlag(args, "recall");
  const config = RecallSchema.parse(recallJson ? (JSON.parse(recallJson) as unknown) : {});
  const dump = stringFlag(args, "dump");
  const log = args.flags.quiet === true ? () => undefined : (m: string) => process.stderr.write(`[eval] ${m}\n`);
  const dataDir = join(tmpdir(), "cortexd-eval");
  mkdirSync(dataDir, { recursive: true });
  const provider =
    args.flags.keyword === true ? null : (await selectProvider(EmbeddingSchema.parse({}), { dataDir })).provider;
  const tmp = mkdtempSync(join(tmpdir(), "cortexd-eval-noise-"));
  const rows: Row[] = [];
  try {
    for (const conv of convs) {
      const cdir = join(tmp, conv.id);
      const ws = makeWorkspace(conv, variant, cdir);
      const idx = await buildIndex(conv, ws, join(cdir, "index.sqlite"), provider, ChunkingSchema.parse({}));
      try {
        const searcher = new Searcher({ store: idx.store, provider, config: SearchSchema.parse({}) });
        for (const prompt of prompts) {
          const res = await recall(searcher, idx.store, {
            query: prompt,
            record: false,
            config,
            ...(dump ? { explain: true } : {}),
          });
          rows.push({ conv: conv.id, prompt, chars: res.context.length });
          if (dump)
            appendFileSync(
              dump,
              `${JSON.stringify({ conv: conv.id, prompt, chars: res.context.length, explain: res.explain })}\n`,
            );
        }
      } finally {
        idx.store.close();
      }
      log(`${conv.id}: ${idx.info.chunks} chunks; ${prompts.length} prompts`);
    }
  } finally {
    await provider?.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  const overall = summary(rows);
  const per = convs.map((c) => ({ conv: c.id, ...summary(rows.filter((r) => r.conv === c.id)) }));
  if (args.flags.json === true) {
    process.stdout.write(
      `${JSON.stringify({ variant, mode: provider ? "hybrid" : "keyword", prompts: prompts.length, overall, perConversation: per, config }, null, 2)}\n`,
    );
    return 0;
  }
  const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
  const out = [
    `noise prompts · ${prompts.length} prompts × ${convs.length} workspaces · variant ${variant}/ · ${provider ? `hybrid (${provider.modelName})` : "keyword-only"} · relevance ${config.relevance}`,
  ];
  for (const p of per)
    out.push(`${p.conv}: empty ${pct(p.empty)} · mean ${p.meanChars.toFixed(0)} chars · p95 ${p.p95Chars.toFixed(0)}`);
  out.push(
    `overall: empty ${pct(overall.empty)} (${Math.round(overall.empty * overall.n)}/${overall.n}) · mean ${overall.meanChars.toFixed(0)} chars injected · p95 ${overall.p95Chars.toFixed(0)}`,
  );
  const worst = [...new Set(rows.filter((r) => r.chars > 0).map((r) => r.prompt))].slice(0, 8);
  if (worst.length)
    out.push(
      `prompts that injected something (first ${worst.length}): ${worst.map((w) => JSON.stringify(w)).join(", ")}`,
    );
  process.stdout.write(`${out.join("\n")}\n`);
  return 0;
}
