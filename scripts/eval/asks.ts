/**
 * `npm run eval -- asks [dir]`: the questions people actually ask of their memory (a bare rare term,
 * "what did I do yesterday?", a half-remembered fix in their own words, a fact in a small memory, an
 * unrelated prompt), with the metrics of the set's README (../shared/eval/asks/dev/README.md).
 * Each workspace is indexed as it is (read-only) into a temp index; every question goes through the
 * real Searcher and recall with `referenceDate: asked_on` and a 2,000-token budget.
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ChunkingSchema, EmbeddingSchema, RecallSchema, SearchSchema } from "../../src/config/schema.js";
import type { EmbeddingProvider } from "../../src/embed/provider.js";
import { selectProvider } from "../../src/embed/select.js";
import { openDatabase } from "../../src/index/db/db.js";
import { IndexStore } from "../../src/index/repos/store.js";
import { Indexer } from "../../src/indexer/sync.js";
import { recall } from "../../src/search/recall.js";
import { Searcher } from "../../src/search/searcher.js";
import type { SearchHit } from "../../src/search/types.js";
import { parseArgs, stringFlag } from "./args.js";
import { repoRoot } from "./locomo.js";
import {
  contextMemories,
  scoreAsk,
  summariseAsks,
  type AskLine,
  type AskQuestion,
  type AskScore,
} from "./asks-metrics.js";

export const ASKS_USAGE = `asks [dir] — everyday questions (default dir: <repo>/../shared/eval/asks/dev)
  --keyword          keyword-only (no embedding model)
  --kinds K[,K]      only these kinds (exact, time, natural, small, noise)
  --search JSON      search settings, e.g. '{"maxResults": 10}'
  --recall JSON      recall settings, e.g. '{"relevance":"off"}'
  --budget N         recall budget in tokens (default 2000)
  --dump FILE        append each question's context, search hits and recall explanation as JSONL
  --json             machine-readable output`;

function readJsonl<T>(file: string): T[] {
  if (!existsSync(file)) throw new Error(`not found: ${file}`);
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as T);
}

async function indexWorkspace(
  root: string,
  dbPath: string,
  name: string,
  provider: EmbeddingProvider | null,
): Promise<IndexStore> {
  const store = new IndexStore(openDatabase(dbPath), `eval-asks-${name}`);
  const indexer = new Indexer({ store, target: { root }, provider, chunking: ChunkingSchema.parse({}) });
  await indexer.sync();
  store.keepKeywordsInMemory();
  if (!(await store.text.postings.ready())) throw new Error(`keyword postings: ${store.text.postings.lastError}`);
  return store;
}

export async function asksCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  const known = new Set(["keyword", "kinds", "search", "recall", "budget", "dump", "json", "help", "quiet"]);
  const unknown = Object.keys(args.flags).filter((k) => !known.has(k));
  if (unknown.length) throw new Error(`unknown option(s): ${unknown.map((k) => `--${k}`).join(", ")}\n${ASKS_USAGE}`);
  const dir = resolve(args.positional[0] ?? join(repoRoot(), "../shared/eval/asks/dev"));
  const kinds = stringFlag(args, "kinds")?.split(",");
  const questions = readJsonl<AskQuestion>(join(dir, "questions.jsonl")).filter(
    (q) => !kinds || kinds.includes(q.kind),
  );
  const lines = readJsonl<AskLine>(join(dir, "lines.jsonl"));
  const searchJson = stringFlag(args, "search");
  const recallJson = stringFlag(args, "recall");
  const searchConfig = SearchSchema.parse(searchJson ? (JSON.parse(searchJson) as unknown) : {});
  const recallConfig = RecallSchema.parse(recallJson ? (JSON.parse(recallJson) as unknown) : {});
  const budgetTokens = Number(stringFlag(args, "budget") ?? 2000);
  const dump = stringFlag(args, "dump");
  const log = args.flags.quiet === true ? () => undefined : (m: string) => process.stderr.write(`[eval] ${m}\n`);
  const dataDir = join(tmpdir(), "cortexd-eval");
  mkdirSync(dataDir, { recursive: true });
  const provider =
    args.flags.keyword === true ? null : (await selectProvider(EmbeddingSchema.parse({}), { dataDir })).provider;
  const tmp = mkdtempSync(join(tmpdir(), "cortexd-eval-asks-"));
  const scores: AskScore[] = [];
  const latencies: number[] = [];
  try {
    const byWorkspace = new Map<string, AskQuestion[]>();
    for (const q of questions) byWorkspace.set(q.workspace, [...(byWorkspace.get(q.workspace) ?? []), q]);
    for (const [ws, qs] of byWorkspace) {
      const t0 = performance.now();
      const store = await indexWorkspace(join(dir, ws), join(tmp, `${ws}.sqlite`), ws, provider);
      log(
        `${ws}: ${store.counts().chunks} chunks in ${(performance.now() - t0).toFixed(0)} ms; ${qs.length} questions`,
      );
      const wsLines = lines.filter((l) => l.workspace === ws);
      try {
        const searcher = new Searcher({ store, provider, config: searchConfig });
        for (const q of qs) {
          const t1 = performance.now();
          const res = await recall(searcher, store, {
            query: q.question,
            budgetTokens,
            referenceDate: q.asked_on,
            record: false,
            config: recallConfig,
            ...(dump ? { explain: true } : {}),
          });
          latencies.push(performance.now() - t1);
          let hits: SearchHit[] = [];
          if (q.kind === "exact") hits = (await searcher.search({ query: q.question })).results;
          const score = scoreAsk(q, res.context, hits, wsLines);
          scores.push(score);
          if (dump)
            appendFileSync(
              dump,
              `${JSON.stringify({ ...score, question: q.question, target: q.target, memories: contextMemories(res.context).map((m) => m.raw), hits: hits.map((h) => ({ path: h.path, startLine: h.startLine, endLine: h.endLine, score: h.score, snippet: h.snippet.slice(0, 120) })), explain: res.explain })}\n`,
            );
        }
      } finally {
        store.close();
      }
    }
  } finally {
    await provider?.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  const summary = summariseAsks(scores);
  latencies.sort((a, b) => a - b);
  const p50 = latencies[Math.floor(latencies.length / 2)] ?? 0;
  if (args.flags.json === true) {
    process.stdout.write(
      `${JSON.stringify({ dir, mode: provider ? "hybrid" : "keyword", summary, recallP50Ms: p50, scores }, null, 2)}\n`,
    );
    return 0;
  }
  process.stdout.write(
    `asks · ${dir} · ${provider ? `hybrid (${provider.modelName})` : "keyword-only"} · budget ${budgetTokens} · recall p50 ${p50.toFixed(1)} ms (in process)\n${summary.lines.join("\n")}\n`,
  );
  return 0;
}
