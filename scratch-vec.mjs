import D from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
const db = new D(process.argv[2], { readonly: true });
sqliteVec.load(db);
console.log(db.prepare("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE '%vec%'").pluck().all().join(" "));
const max = db.prepare("SELECT max(rowid) FROM chunks_vec_rowids").pluck().get();
const get = db.prepare("SELECT embedding FROM chunks_vec WHERE rowid = ?");
console.log("max rowid", max);
for (let round = 0; round < 4; round++) {
  const ids = Array.from({ length: 360 }, () => 1 + Math.floor(Math.random() * max));
  let t = performance.now(); let n = 0;
  for (const id of ids) if (get.get(BigInt(id))) n++;
  const a = performance.now() - t;
  const sorted = [...ids].sort((x, y) => x - y);
  t = performance.now();
  for (const id of sorted) get.get(BigInt(id));
  const b = performance.now() - t;
  t = performance.now();
  for (const id of ids) get.get(BigInt(id));
  const c = performance.now() - t;
  console.log(`360 lookups: random ${a.toFixed(1)} ms (${n} found), same sorted ${b.toFixed(1)} ms, again ${c.toFixed(1)} ms`);
}
