import { createHash } from "node:crypto";
import { join } from "node:path";
import { openDatabase } from "../../src/index/db/db.js";
import { IndexStore } from "../../src/index/repos/store.js";
import { Indexer } from "../../src/indexer/sync.js";
import { generateWorkspace } from "./generate.js";
import { benchPath, freshDir } from "./util.js";

/**
 * `node dist/scripts/bench/cold-dump.js FILES [label]`: a cold index of a generated workspace
 * (seed 42), its time and facts-pass time, and a digest of every facts table (equal digests =
 * the facts pass wrote the same rows, ids included).
 */
const files = Number(process.argv[2] ?? 3000);
const label = process.argv[3] ?? "run";
const root = process.env.COLD_ROOT ?? benchPath(`ws-cold-${files}`);
const ws = process.env.COLD_ROOT ? { files } : generateWorkspace(root, files, 42, true);
const dir = freshDir(benchPath(`db-cold-${label}`));
const opened = openDatabase(join(dir, "index.sqlite"));
const db = opened.db;
const store = new IndexStore(opened, "bench");
const indexer = new Indexer({
  store,
  target: { root },
  provider: null,
  chunking: { maxTokens: 400, overlapTokens: 80 },
});
const t0 = performance.now();
const report = await indexer.sync();
const ms = performance.now() - t0;
const tables = db
  .prepare(
    `SELECT name FROM sqlite_master WHERE type = 'table' AND (name LIKE 'fact%' OR name = 'chunk_entities') ORDER BY name`,
  )
  .pluck()
  .all() as string[];
const digests: Record<string, string> = {};
for (const t of tables) {
  const h = createHash("sha256");
  const cols = (db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(t) as string[]).map((_, i) => i + 1);
  for (const row of db
    .prepare(`SELECT * FROM ${t} ORDER BY ${cols.join(", ")}`)
    .raw()
    .iterate())
    h.update(JSON.stringify(row) + "\n");
  const n = db.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number;
  digests[t] = `${n} ${h.digest("hex").slice(0, 16)}`;
}
const bytes = db
  .prepare(`SELECT page_count * page_size FROM pragma_page_count, pragma_page_size`)
  .pluck()
  .get() as number;
console.log(
  JSON.stringify({
    label,
    files: ws.files,
    chunks: report.chunksWritten,
    coldMs: Math.round(ms),
    factsMs: Math.round(report.facts?.ms ?? 0),
    msPerChunk: +(ms / report.chunksWritten).toFixed(3),
    dbBytesPerChunk: Math.round(bytes / report.chunksWritten),
    rssMb: Math.round(process.memoryUsage().rss / 1e6),
    maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  }),
);
console.log(JSON.stringify(digests));
db.close();
