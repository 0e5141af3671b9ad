import { appendFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { EmbeddingProvider } from "../../src/embed/provider.js";
import { openDatabase } from "../../src/index/db/db.js";
import { IndexStore } from "../../src/index/repos/store.js";
import { Indexer } from "../../src/indexer/sync.js";
import { generateWorkspace } from "./generate.js";
import { benchPath, fileSize, fmtMs, freshDir, maxRssMb, median, type Args } from "./util.js";
import { errorMessage } from "../../src/util/error-message.js";

export interface IndexFigures {
  mode: string;
  files: number;
  corpusBytes: number;
  coldMs: number;
  /** Of coldMs, the facts pass (statements, entities, slot links: src/facts/sync-facts.ts). */
  coldFactsMs: number;
  filesPerSec: number;
  chunks: number;
  unchangedMs?: number;
  oneChangedMs?: number;
  oneChangedTargetedMs?: number;
  /** Of oneChangedTargetedMs, the facts pass (it relinks every slot when a statement comes or goes). */
  oneChangedFactsMs?: number;
  dbBytes?: number;
  dbRatio?: number;
}

async function coldIndex(
  mode: string,
  root: string,
  files: number,
  corpusBytes: number,
  provider: EmbeddingProvider | null,
  repeat: boolean,
) {
  const dir = freshDir(benchPath(`db-${mode}`));
  const dbPath = join(dir, "index.sqlite");
  const store = new IndexStore(openDatabase(dbPath), "bench");
  const indexer = new Indexer({ store, target: { root }, provider, chunking: { maxTokens: 400, overlapTokens: 80 } });
  const t0 = performance.now();
  const report = await indexer.sync();
  const coldMs = performance.now() - t0;
  const figures: IndexFigures = {
    mode,
    files,
    corpusBytes,
    coldMs,
    coldFactsMs: report.facts?.ms ?? 0,
    filesPerSec: Math.round(files / (coldMs / 1000)),
    chunks: report.chunksWritten,
  };
  if (repeat) {
    const unchanged: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t = performance.now();
      const r = await indexer.sync();
      unchanged.push(performance.now() - t);
      if (r.unchanged !== files) throw new Error(`unchanged re-sync saw changes: ${JSON.stringify(r)}`);
    }
    const dailies = readdirSync(join(root, "memory"))
      .filter((f) => f.endsWith(".md"))
      .sort();
    const changed: number[] = [];
    for (let i = 0; i < 7; i++) {
      appendFileSync(
        join(root, "memory", dailies[i * 10]!),
        `\n- bench edit ${Date.now()} ${i}: a new line about the deploy.\n`,
      );
      const t = performance.now();
      const r = await indexer.sync();
      changed.push(performance.now() - t);
      if (r.changed !== 1) throw new Error(`one-file re-sync expected 1 change: ${JSON.stringify(r)}`);
    }
    // The daemon's path: a watcher event names the file, no workspace scan.
    const targeted: number[] = [];
    const targetedFacts: number[] = [];
    for (let i = 0; i < 7; i++) {
      const file = join(root, "memory", dailies[i * 10 + 5]!);
      appendFileSync(file, `\n- bench edit ${Date.now()} ${i}: another line about the release.\n`);
      const t = performance.now();
      const r = await indexer.sync({ paths: [file] });
      targeted.push(performance.now() - t);
      targetedFacts.push(r.facts?.ms ?? 0);
      if (r.changed !== 1) throw new Error(`targeted re-sync expected 1 change: ${JSON.stringify(r)}`);
    }
    store.upkeep.walCheckpoint();
    figures.unchangedMs = median(unchanged);
    figures.oneChangedMs = median(changed);
    figures.oneChangedTargetedMs = median(targeted);
    figures.oneChangedFactsMs = median(targetedFacts);
    figures.dbBytes = fileSize(dbPath) + fileSize(dbPath + "-wal");
    figures.dbRatio = Math.round((figures.dbBytes / corpusBytes) * 100) / 100;
  }
  store.close();
  return figures;
}

function print(f: IndexFigures): void {
  console.log(`\n[${f.mode}] ${f.files} files, ${(f.corpusBytes / 1e6).toFixed(1)} MB, ${f.chunks} chunks`);
  console.log(`  cold index:            ${fmtMs(f.coldMs)} (${f.filesPerSec} files/s)`);
  console.log(
    `  of which facts pass:   ${fmtMs(f.coldFactsMs)} (${Math.round((f.coldFactsMs / f.coldMs) * 100)}%: statements, entities, slot links)`,
  );
  if (f.unchangedMs !== undefined) console.log(`  unchanged re-sync:     ${fmtMs(f.unchangedMs)} (median of 7)`);
  if (f.oneChangedMs !== undefined)
    console.log(`  one file changed:      ${fmtMs(f.oneChangedMs)} (full re-sync, median of 7)`);
  if (f.oneChangedTargetedMs !== undefined)
    console.log(
      `  one file changed:      ${fmtMs(f.oneChangedTargetedMs)} (that file only, as the watcher does; median of 7)` +
        (f.oneChangedFactsMs !== undefined ? `, of which facts pass ${fmtMs(f.oneChangedFactsMs)}` : ""),
    );
  if (f.dbBytes !== undefined)
    console.log(`  DB size:               ${(f.dbBytes / 1e6).toFixed(1)} MB (${f.dbRatio}× corpus)`);
}

/** `npm run bench -- index [--files N] [--seed S] [--keyword-only] [--json]`. */
export async function benchIndex(args: Args): Promise<void> {
  const files = Number(args.flags.files ?? 2000);
  const seed = Number(args.flags.seed ?? 42);
  const root = benchPath(`ws-${files}-${seed}`);
  const gen = generateWorkspace(root, files, seed);
  const results: IndexFigures[] = [];
  results.push(await coldIndex("keyword-only", root, gen.files, gen.bytes, null, true));
  print(results[0]!);
  if (args.flags["keyword-only"]) return;

  const { ensureTinyTestModel } = await import("../../test/fixtures/embed/tiny-model.js");
  const { createLocalProvider } = await import("../../src/embed/local-provider.js");
  const tiny = await createLocalProvider({ model: await ensureTinyTestModel(), threads: 1 });
  results.push(await coldIndex("test-model (node-llama-cpp)", root, gen.files, gen.bytes, tiny, false));
  print(results[results.length - 1]!);
  await tiny.close();

  try {
    const { ensureBuiltinModel } = await import("../../src/embed/builtin/ensure.js");
    const { createStaticBertProvider } = await import("../../src/embed/builtin/fast-provider.js");
    const builtin = await createStaticBertProvider(await ensureBuiltinModel(benchPath("models")));
    results.push(await coldIndex("built-in model (fast path)", root, gen.files, gen.bytes, builtin, false));
    print(results[results.length - 1]!);
    await builtin.close();
  } catch (e) {
    console.log(`\n[built-in model] skipped: ${errorMessage(e)}`);
  }
  console.log(`\nmax RSS: ${maxRssMb()} MB   (node ${process.version}, ${process.platform}-${process.arch})`);
  if (args.flags.json) console.log(JSON.stringify({ results, maxRssMb: maxRssMb() }));
}
