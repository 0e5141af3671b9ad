import fs from "fs"; import os from "os"; import path from "path";
import { openDatabase } from "./dist/src/index/db.js";
import { IndexStore } from "./dist/src/index/store.js";
import { Indexer } from "./dist/src/index/sync.js";
import { Searcher } from "./dist/src/search/searcher.js";
import { SearchSchema } from "./dist/src/config/schema.js";
import { recall } from "./dist/src/search/recall.js";
const conv = "../shared/eval/locomo/conv-26";
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "dbg-")); fs.cpSync(conv + "/memory", tmp + "/memory", { recursive: true });
const store = new IndexStore(openDatabase(tmp + "/i.sqlite"), "d");
await new Indexer({ store, target: { root: tmp }, provider: null, chunking: { maxTokens: 400, overlapTokens: 80 } }).sync();
const s = new Searcher({ store, provider: null, config: SearchSchema.parse({}) });
const turns = new Map(fs.readFileSync(conv + "/turns.jsonl", "utf8").trim().split("\n").map(l => JSON.parse(l)).map(t => [t.dia_id, t]));
let shown = 0;
for (const l of fs.readFileSync(conv + "/queries.jsonl", "utf8").trim().split("\n")) {
  const q = JSON.parse(l); if (!q.scorable || q.category !== 4) continue;
  const r = await recall(s, store, { query: q.question, record: false });
  const miss = q.evidence.filter(e => !r.context.includes(`[${e}]`));
  const res = await s.search({ query: q.question, limit: 30, fullText: true });
  const inFull = q.evidence.filter(e => res.results.slice(0, 6).some(h => h.text.includes(`[${e}]`)));
  if (miss.length && inFull.length && shown++ < 6) {
    console.log("\nQ:", q.question, "| A:", q.answer);
    for (const e of miss) console.log("  MISSED", e, turns.get(e)?.text);
    const h = res.results.find(h => h.text.includes(`[${miss[0]}]`));
    console.log("  chunk rank", res.results.indexOf(h) + 1, "memories", r.memory_count, "tokens", r.tokens_used);
    const m = r.memories.find(m => m.path === h.path && m.startLine >= h.startLine && m.endLine <= h.endLine);
    console.log("  excerpt:", m?.text.slice(0, 300));
  }
}
