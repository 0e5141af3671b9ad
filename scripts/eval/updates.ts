/**
 * `npm run eval -- updates [dir]`: generated agent memories in which facts change over time
 * (../shared/eval/updates/dev by default). Each workspace is copied to a temp dir and indexed with
 * the built-in model; each question is recalled as the README says (question, referenceDate =
 * asked_on, budget 2,000 tokens, defaults) and scored with updates-metrics.ts.
 */
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ChunkingSchema, EmbeddingSchema, RecallSchema, SearchSchema } from "../../src/config/schema.js";
import { selectProvider } from "../../src/embed/select.js";
import { openDatabase } from "../../src/index/db/db.js";
import { IndexStore } from "../../src/index/repos/store.js";
import { Indexer } from "../../src/indexer/sync.js";
import { recall } from "../../src/search/recall.js";
import { Searcher } from "../../src/search/searcher.js";
import { parseArgs, stringFlag } from "./args.js";
import { repoRoot } from "./locomo.js";
import { percentile } from "./metrics.js";
import { scoreUpdate, type UpdateScores } from "./updates-metrics.js";

export const UPDATES_USAGE = `updates [dir] — facts that change over time (default dir: <repo>/../shared/eval/updates/dev)
  --budget N         recall budget in tokens (default 2000)
  --recall JSON      recall settings, e.g. '{"relevance":"off"}'
  --keyword          keyword-only (no embedding model)
  --ws ID[,ID]       only these workspaces
  --dump FILE        append each question's context and scores as JSONL
  --json             machine-readable output`;

interface Question {
  id: string;
  workspace: string;
  question: string;
  current: string[];
  stale: string[];
  asked_on: string;
  style: string;
  change: string;
  source: string;
  kind_time: string;
}

interface Row extends UpdateScores {
  q: Question;
}

function loadQuestions(file: string): Question[] {
  if (!existsSync(file)) throw new Error(`questions not found: ${file} (expected the updates set's questions.jsonl)`);
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l, i) => {
      const q = JSON.parse(l) as Partial<Question>;
      if (typeof q.question !== "string" || typeof q.workspace !== "string" || !Array.isArray(q.current))
        throw new Error(`${file}:${i + 1}: expected {workspace, question, current, stale, asked_on, …}`);
      return { stale: [], style: "", change: "", source: "", kind_time: "current", asked_on: "", ...q } as Question;
    });
}

function summary(rows: readonly Row[]) {
  const mean = (f: (r: Row) => number) => (rows.length ? rows.reduce((s, r) => s + f(r), 0) / rows.length : NaN);
  return {
    n: rows.length,
    found: mean((r) => +r.found),
    currentFirst: mean((r) => +r.currentFirst),
    staleAbsent: mean((r) => +r.staleAbsent),
    leads: mean((r) => +r.leads),
    chars: mean((r) => r.chars),
    p95Chars: percentile(
      rows.map((r) => r.chars),
      95,
    ),
  };
}

export async function updatesCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  const known = new Set(["budget", "recall", "keyword", "ws", "dump", "json", "help", "quiet"]);
  const unknown = Object.keys(args.flags).filter((k) => !known.has(k));
  if (unknown.length)
    throw new Error(`unknown option(s): ${unknown.map((k) => `--${k}`).join(", ")}\n${UPDATES_USAGE}`);
  const dir = args.positional[0] ? resolve(args.positional[0]) : resolve(repoRoot(), "../shared/eval/updates/dev");
  const budget = Number(stringFlag(args, "budget") ?? 2000);
  if (!Number.isInteger(budget) || budget < 1) throw new Error(`--budget must be a positive integer`);
  const recallJson = stringFlag(args, "recall");
  const config = RecallSchema.parse(recallJson ? (JSON.parse(recallJson) as unknown) : {});
  const only = stringFlag(args, "ws")
    ?.split(",")
    .map((w) => w.trim())
    .filter(Boolean);
  const dump = stringFlag(args, "dump");
  const log = args.flags.quiet === true ? () => undefined : (m: string) => process.stderr.write(`[eval] ${m}\n`);
  const questions = loadQuestions(join(dir, "questions.jsonl")).filter((q) => !only || only.includes(q.workspace));
  const workspaces = [...new Set(questions.map((q) => q.workspace))];
  const dataDir = join(tmpdir(), "cortexd-eval");
  mkdirSync(dataDir, { recursive: true });
  const provider =
    args.flags.keyword === true ? null : (await selectProvider(EmbeddingSchema.parse({}), { dataDir })).provider;
  const tmp = mkdtempSync(join(tmpdir(), "cortexd-eval-updates-"));
  const rows: Row[] = [];
  let indexMs = 0;
  try {
    for (const ws of workspaces) {
      // The workspace names come from the question file: only a plain name is a directory of the set.
      if (!/^[\w.-]+$/.test(ws) || ws.startsWith(".")) throw new Error(`bad workspace name in questions: ${ws}`);
      const root = join(tmp, ws);
      cpSync(join(dir, ws), root, { recursive: true });
      const store = new IndexStore(openDatabase(join(tmp, `${ws}.sqlite`)), `eval-${ws}`);
      try {
        const t0 = performance.now();
        await new Indexer({ store, target: { root }, provider, chunking: ChunkingSchema.parse({}) }).sync();
        store.keepKeywordsInMemory();
        await store.text.postings.ready();
        indexMs += performance.now() - t0;
        const searcher = new Searcher({ store, provider, config: SearchSchema.parse({}) });
        for (const q of questions.filter((x) => x.workspace === ws)) {
          const res = await recall(searcher, store, {
            query: q.question,
            budgetTokens: budget,
            record: false,
            config,
            ...(q.asked_on ? { referenceDate: q.asked_on } : {}),
          });
          const s = scoreUpdate(res.context, q.current, q.stale);
          rows.push({ q, ...s });
          if (dump)
            appendFileSync(dump, `${JSON.stringify({ id: q.id, question: q.question, ...s, context: res.context })}\n`);
        }
        log(`${ws}: ${store.counts().chunks} chunks, ${questions.filter((x) => x.workspace === ws).length} questions`);
      } finally {
        store.close();
      }
    }
  } finally {
    await provider?.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  const overall = summary(rows);
  const by = (key: (q: Question) => string) =>
    Object.fromEntries(
      [...new Set(rows.map((r) => key(r.q)))].sort().map((k) => [k, summary(rows.filter((r) => key(r.q) === k))]),
    );
  const groups = { style: by((q) => q.style), change: by((q) => q.change), source: by((q) => q.source) };
  if (args.flags.json === true) {
    process.stdout.write(
      `${JSON.stringify({ dir, mode: provider ? "hybrid" : "keyword", budget, overall, ...groups, indexMs, config }, null, 2)}\n`,
    );
    return 0;
  }
  const f = (x: number) => x.toFixed(2).replace(/^0/, "");
  const line = (s: ReturnType<typeof summary>) =>
    `${s.n} questions, found ${f(s.found)}, current-first ${f(s.currentFirst)}, stale-absent ${f(s.staleAbsent)}, leads ${f(s.leads)}, chars ${s.chars.toFixed(0)}`;
  const out = [`updates: ${line(overall)}`];
  for (const [name, g] of Object.entries(groups))
    for (const [k, s] of Object.entries(g)) out.push(`  ${name} ${k}: ${line(s)}`);
  out.push(
    `  ${provider ? `hybrid (${provider.modelName})` : "keyword-only"} · budget ${budget} · index ${(indexMs / 1000).toFixed(1)} s`,
  );
  process.stdout.write(`${out.join("\n")}\n`);
  return 0;
}
