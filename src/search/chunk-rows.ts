import type { ChunkMeta, ChunkRow, IndexStore } from "../index/repos/store.js";
import type { StageTimer } from "./stage-timer.js";

/** A chunk row as the stages see it: the whole row with its metadata's importance. */
export type RankedRow = Omit<ChunkRow, "vecState"> & Pick<ChunkMeta, "importance">;

/**
 * One search's whole chunk rows, their bodies (text, hash) read only for the chunks a stage needs
 * (the passage head, the MMR window, the results), each at most once, the rest from their metadata:
 * the other candidates are ranked on their metadata (store.chunkMeta) alone. The time spent reading
 * is charged to the "rows" stage.
 */
export class ChunkRows {
  private readonly rows = new Map<number, RankedRow>();

  constructor(
    private readonly store: Pick<IndexStore, "chunkBodies">,
    private readonly meta: ReadonlyMap<number, ChunkMeta>,
    private readonly timer: StageTimer,
  ) {}

  /** The rows read so far, with those of `ids` not read yet read now (one statement), for `stage`. */
  read(ids: readonly number[], stage: string): Map<number, RankedRow> {
    const missing = ids.filter((id) => !this.rows.has(id));
    if (missing.length === 0) return this.rows;
    this.timer.lap(stage);
    for (const [id, body] of this.store.chunkBodies(missing)) {
      const m = this.meta.get(id);
      if (!m) continue;
      this.rows.set(id, {
        id,
        fileId: m.fileId,
        seq: m.seq,
        path: m.path,
        class: m.class,
        date: m.date,
        startLine: m.startLine,
        endLine: m.endLine,
        ts: m.ts,
        importance: m.importance,
        text: body.text,
        hash: body.hash,
      });
    }
    this.timer.lap("rows");
    return this.rows;
  }
}
