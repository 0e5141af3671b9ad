import { parentPort, workerData } from "node:worker_threads";
import { closeDatabase, openDatabase } from "../index/db/db.js";
import { EntityGraph } from "../index/repos/entity-graph.js";
import { topEntities } from "../search/entity-names.js";
import { errorMessage } from "../util/error-message.js";

/**
 * A worker thread's one job (top-entities.ts starts it): count the top entities of one index on its
 * own read-only connection, so the daemon's event loop never holds still for it (0.4–0.6 s at
 * 100,000 chunks), and post them back.
 */
const { dbPath, n } = workerData as { dbPath: string; n: number };
try {
  // One pass over the entity index reads each page once: a page cache of the daemon's 8 MB would
  // only be freed into this thread's malloc arena when it exits, and stay in the daemon's RSS.
  const { db } = openDatabase(dbPath, { readonly: true, loadVec: false, cacheKib: 512 });
  try {
    const rows = topEntities(new EntityGraph(db), n).map((e) => ({
      name: e.name,
      chunks: e.chunks,
      ...(e.aliases ? { aliases: e.aliases } : {}),
    }));
    parentPort!.postMessage({ rows });
  } finally {
    closeDatabase(db);
  }
} catch (e) {
  parentPort!.postMessage({ error: errorMessage(e) ?? String(e) });
}
