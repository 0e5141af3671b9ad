import type { ChunkingOptions } from "../ingest/types.js";
import type { WorkspaceFile } from "../workspace/scan.js";
import type { ConflictRegistry } from "./conflict-registry.js";
import { stampOf, type Stamp } from "./file-issues.js";
import type { FileStamp, IndexStore } from "../index/repos/store.js";
import { prepareFile, type PreparedFile } from "./sync-prepare.js";
import { loadFile, type Loaded } from "./sync-read.js";
import type { SyncProgress, SyncReport } from "./sync-report.js";
import { embedFresh, type VectorDeps } from "./sync-vectors.js";
import { deleteInSlices, SLICE_CHUNKS, writeInSlices } from "./write-slices.js";

/** Sync, writing phase: reads the changed files ahead, decides each and writes them in batches. */
export interface WriteDeps extends VectorDeps {
  chunking: ChunkingOptions;
  maxFileBytes: number;
  conflicts: ConflictRegistry;
}

export interface WriteJob {
  work: WorkspaceFile[];
  indexed: Map<string, FileStamp>;
  goneBySha: Map<string, FileStamp[]>;
  force: boolean;
  useVectors: boolean;
  report: SyncReport;
  skipStamps: Map<string, Stamp>;
  progress: (p: Omit<SyncProgress, "chunks" | "embedded">) => void;
  filesTotal: number;
  signal: AbortSignal | undefined;
}

/** Files read concurrently. */
const READ_AHEAD = 8;
/** A write batch closes after this many files or bytes. */
const BATCH_FILES = 64;
const BATCH_BYTES = 4 * 1024 * 1024;

/**
 * Phase 3: reads the changed files ahead, decides what each needs and writes them in batches
 * (one transaction each, so a crash leaves whole files indexed or not at all). Stops after the
 * current batch when the signal aborts.
 */
export async function writeChanged(
  deps: WriteDeps,
  job: WriteJob,
): Promise<{ aborted: boolean; done: number; renamedFrom: Set<string> }> {
  const { store } = deps;
  const { work, indexed, goneBySha, force, useVectors, report, skipStamps, progress } = job;
  const batchRenames: string[] = [];
  let done = report.unchanged;
  const reads = new Map<number, Promise<Loaded>>();
  const readAhead = (i: number) => {
    if (i < work.length && !reads.has(i)) {
      const f = work[i]!;
      reads.set(i, loadFile(f, indexed.has(f.path) ? store.getFile(f.path) : undefined, force, deps.maxFileBytes));
    }
  };
  let batch: PreparedFile[] = [];
  let batchBytes = 0;
  for (let i = 0; i < work.length; i++) {
    for (let j = i; j < i + READ_AHEAD; j++) readAhead(j);
    let loaded = await reads.get(i)!;
    reads.delete(i);
    const row = () => (indexed.has(loaded.file.path) ? store.getFile(loaded.file.path) : undefined);
    const prepare = () =>
      prepareFile(store, deps.chunking, loaded, row(), goneBySha, force, report, (path, blocks) =>
        deps.conflicts.mark(path, blocks),
      );
    let prepared = prepare();
    if (prepared?.kind === "reread") {
      // Only the tail of a markdown log was read, and it was not enough: read it whole (no resume).
      loaded = await loadFile(loaded.file, row(), true, deps.maxFileBytes);
      prepared = prepare();
    }
    if (loaded.skip) skipStamps.set(loaded.file.path, stampOf(loaded.file));
    if (prepared?.kind === "rename") batchRenames.push(prepared.from);
    if (prepared) {
      batch.push(prepared);
      batchBytes += loaded.buf?.length ?? 0;
    }
    done++;
    if (batch.length >= BATCH_FILES || batchBytes >= BATCH_BYTES || i === work.length - 1) {
      await commitBatch(deps, batch, useVectors, report);
      batch = [];
      batchBytes = 0;
    }
    if (done % 25 === 0) progress({ phase: "files", filesDone: done, filesTotal: job.filesTotal });
    if (job.signal?.aborted && i < work.length - 1) {
      await commitBatch(deps, batch, useVectors, report);
      for (const pending of reads.values()) pending.catch(() => {}); // read-aheads nobody will use
      return { aborted: true, done, renamedFrom: new Set(batchRenames) };
    }
  }
  return { aborted: false, done, renamedFrom: new Set(batchRenames) };
}

/** Embeds the batch's new chunks (through the cache), then writes the whole batch in one transaction. */
async function commitBatch(
  deps: WriteDeps,
  batch: PreparedFile[],
  useVectors: boolean,
  report: SyncReport,
): Promise<void> {
  if (batch.length === 0) return;
  const { store, conflicts } = deps;
  if (useVectors)
    await embedFresh(
      deps,
      batch.flatMap((p) => (p.kind === "replace" ? p.chunks : [])),
      report,
    );
  // A file of many chunks is written (or removed) on its own, in slices (write-slices.ts), after the others.
  const had = (p: PreparedFile) =>
    p.kind === "replace" ? (p.had ?? store.chunkEnd(p.meta.path)) : p.kind === "delete" ? store.chunkEnd(p.path) : 0;
  const big = batch.filter((p) =>
    p.kind === "replace"
      ? Math.max(p.chunks.length, had(p) - p.keep) > SLICE_CHUNKS
      : p.kind === "delete" && had(p) > SLICE_CHUNKS,
  );
  store.transaction(() => {
    for (const p of batch) {
      if (big.includes(p)) continue;
      if (p.kind === "touch") store.touchFile(p.id, p.size, p.mtimeMs);
      else if (p.kind === "rename") {
        store.renameFile(p.from, p.meta);
        conflicts.move(p.from, p.meta.path);
      } else if (p.kind === "delete") {
        report.chunksRemoved += store.deleteFile(p.path);
        conflicts.mark(p.path, 0);
      } else if (p.kind === "replace") {
        const res = p.keep > 0 ? store.replaceTail(p.meta, p.keep, p.chunks) : store.replaceFile(p.meta, p.chunks);
        report.chunksWritten += res.added;
        report.chunksRemoved += res.removed;
      }
    }
  });
  for (const p of big) {
    if (p.kind === "delete") {
      report.chunksRemoved += await deleteInSlices(store, p.path, () => {
        conflicts.mark(p.path, 0);
        conflicts.persist();
      });
      continue;
    }
    if (p.kind !== "replace") continue;
    const res = await writeInSlices(store, p.meta, p.keep, p.chunks, had(p));
    report.chunksWritten += res.added;
    report.chunksRemoved += res.removed;
  }
  if (useVectors) store.ensureVectorCodes();
}

/**
 * Phase 4: files gone from disk (and not renamed) leave the index, in one transaction; a file of
 * many chunks on its own, in slices (write-slices.ts), after the others.
 */
export async function removeGone(
  store: IndexStore,
  conflicts: ConflictRegistry,
  removals: FileStamp[],
  report: SyncReport,
): Promise<void> {
  const big = removals.filter((g) => store.chunkEnd(g.path) > SLICE_CHUNKS);
  store.transaction(() => {
    for (const g of removals) {
      if (big.includes(g)) continue;
      report.chunksRemoved += store.deleteFile(g.path);
      report.removed++;
      conflicts.mark(g.path, 0);
    }
    conflicts.persist();
  });
  for (const g of big) {
    report.chunksRemoved += await deleteInSlices(store, g.path, () => {
      conflicts.mark(g.path, 0);
      conflicts.persist();
    });
    report.removed++;
  }
}
