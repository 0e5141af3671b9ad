import { fromBlob } from "../index/db/blobs.js";
import type { DailyChunkRow } from "../index/repos/chunks-repo.js";
import { VEC_STORED, type IndexStore } from "../index/repos/store.js";

/** A daily-log chunk as consolidation sees it (vector: unit-normalised, or null when not embedded). */
export type DailyEntry = Omit<DailyChunkRow, "vecState"> & { vector: Float32Array | null };

function unit(b: Buffer): Float32Array {
  const v = fromBlob(b);
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  n = Math.sqrt(n);
  if (n > 0) for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

/** Every chunk of a dated daily log, with its vector when it has one (read in slices, yielding in between). */
export async function loadDailyEntries(store: IndexStore): Promise<DailyEntry[]> {
  const rows = store.chunks.dailyChunks();
  const hasVec = store.vectorDims !== null && store.vectors.hasVecTable();
  const out: DailyEntry[] = [];
  for (const { vecState, ...r } of rows) {
    let vector: Float32Array | null = null;
    if (hasVec && vecState === VEC_STORED) {
      const embedding = store.vectors.vectorBlob(r.id);
      if (embedding) vector = unit(embedding);
    }
    out.push({ ...r, vector });
    if (out.length % 500 === 0) await new Promise<void>((res) => setImmediate(res));
  }
  return out;
}

/** Newer first: later date, then later timestamp, then later chunk. */
export function newer(a: DailyEntry, b: DailyEntry): boolean {
  if (a.date !== b.date) return a.date > b.date;
  if ((a.ts ?? 0) !== (b.ts ?? 0)) return (a.ts ?? 0) > (b.ts ?? 0);
  return a.id > b.id;
}

/** The entry text without heading lines (a daily log's date heading joins its first entry). */
export function bodyText(text: string): string {
  return text
    .split("\n")
    .filter((l) => !/^\s{0,3}#{1,6}\s/.test(l) && !/^\s*<!--.*-->\s*$/.test(l))
    .join("\n")
    .trim();
}
