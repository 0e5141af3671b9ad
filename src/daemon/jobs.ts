import type { Daemon } from "./daemon.js";

/**
 * Heartbeat: every index answers and the files on disk match it (drift is repaired by the sync and
 * counted). The full health/recovery body grows with the heartbeat feature.
 */
export async function runHeartbeat(d: Daemon): Promise<string> {
  let drift = 0;
  for (const ws of d.engine.workspaces) {
    ws.store.db.prepare("SELECT 1").get();
    const r = await d.queue.sync(ws);
    drift += r.added + r.changed + r.removed + r.renamed;
  }
  d.lastHeartbeat = Date.now();
  return drift ? `repaired drift in ${drift} files` : "ok";
}

/** Nightly maintenance: FTS optimize, embedding-cache pruning, WAL checkpoint. */
export async function runMaintenance(d: Daemon): Promise<string> {
  const parts: string[] = [];
  for (const ws of d.engine.workspaces) {
    const t0 = Date.now();
    const db = ws.store.db;
    db.prepare(`INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')`).run();
    const pruned = ws.store.pruneCache(d.engine.config.cache.maxEntries);
    db.pragma("wal_checkpoint(PASSIVE)");
    parts.push(`${ws.name}: optimized, ${pruned} cache entries pruned in ${Date.now() - t0} ms`);
  }
  return parts.join("; ");
}
