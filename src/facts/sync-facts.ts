import type { IndexStore } from "../index/repos/store.js";
import { readChunk } from "./extract.js";
import { relinkChanged } from "./relink.js";

/**
 * The version of the rules that read statements and entities (extract.ts, mentions.ts): an index
 * read by other rules is read again once, at the next sync. Bump it with any change to what they find.
 */
export const FACTS_READER = "8";
const READER_KEY = "facts_reader";
/**
 * "running" from the start of the first pass until it has read every chunk: a first pass stopped
 * part way (a stopping daemon, a crash) is still the first pass when it continues, so the curated
 * lines it reads then are dated as older than any log, like those it read before the stop.
 */
const FIRST_PASS_KEY = "facts_first_pass";

/**
 * Chunks read per transaction: sized by time, about BATCH_MS of work each, between MIN_BATCH and
 * MAX_BATCH chunks. Short chunks (a transcript's turns) go in long batches, so a cold index pays few
 * commits; long ones in short batches, so a ping still waits no more than about one batch.
 */
export const MIN_BATCH = 64;
export const MAX_BATCH = 2048;
const BATCH_MS = 40;

/** The next batch's size from the last one's: its chunks per ms times BATCH_MS, within the bounds. */
export function nextBatch(size: number, ms: number): number {
  if (!(ms > 0)) return Math.min(MAX_BATCH, size * 2);
  const want = Math.round((size * BATCH_MS) / ms);
  // At most double at a time: one fast batch (a run of tiny chunks) does not jump to the cap.
  return Math.max(MIN_BATCH, Math.min(MAX_BATCH, want, size * 2));
}

export interface FactsReport {
  /** Chunks read for statements and entities. */
  chunks: number;
  /** Statements in the index after the pass. */
  statements: number;
  /** Whether some slots were linked again (statements came or went). */
  linked: boolean;
  /** (entity, class) slots linked again: only those the statements that came or went are or were in. */
  slotsRelinked: number;
  /** Slot rows written or deleted by the link pass (only the links that changed). */
  slotsWritten: number;
  ms: number;
  /** Stopped between batches by the signal (a stopping daemon): the next pass reads the rest and links. */
  aborted: boolean;
}

/**
 * The facts pass of a sync (after the chunks are written): reads the chunks not read yet for
 * their statements and entities, then links again in time order the slots of the statements that
 * came or went (relink.ts), so a newer statement supersedes the older one from the moment it is
 * indexed and a statement edited away gives its place back. Deterministic; no model.
 */
export async function syncFacts(
  store: IndexStore,
  opts: {
    clock?: () => number;
    /** Told each batch's chunk ids once it is read (progress). */
    onBatch?: (ids: readonly number[]) => void;
    /** Stops the pass between batches (a stopping daemon): what is read stays read; the link waits. */
    signal?: AbortSignal | undefined;
  } = {},
): Promise<FactsReport> {
  const t0 = performance.now();
  const repo = store.facts;
  const clock = opts.clock ?? Date.now;
  // Curated lines present at the first pass are older than any dated statement (extract.ts).
  const initial = !repo.started() || store.meta.getMeta(FIRST_PASS_KEY) === "running";
  if (initial) store.meta.setMeta(FIRST_PASS_KEY, "running");
  const reader = store.meta.getMeta(READER_KEY);
  const reread = reader !== FACTS_READER && !initial;
  if (reread) repo.forgetReadings();
  // A curated line the older rules never dated (they read no statement in it) is as old as at a
  // first pass: when it was written is unknown, and "now" would let it supersede every log.
  const seenAt = initial || reread ? 0 : clock();
  let chunks = 0;
  const time = { curatedSeen: (path: string, text: string) => repo.firstSeen(path, text, seenAt) };
  let size = MIN_BATCH;
  // A stop between batches loses nothing: the readings are committed batch by batch and the link
  // queue is a table (relink.ts), so the next pass starts where this one stopped and links then.
  const aborted = () => opts.signal?.aborted ?? false;
  for (let after = 0; !aborted();) {
    const t = performance.now();
    const batch = repo.pending(after, size);
    if (batch.length === 0) break;
    repo.readInto(batch, (c) => {
      const read = readChunk(c, time);
      return { found: read.statements, entities: read.entities };
    });
    chunks += batch.length;
    opts.onBatch?.(batch.map((c) => c.id));
    after = batch[batch.length - 1]!.id;
    if (batch.length < size) break;
    size = nextBatch(size, performance.now() - t);
    // A turn of the event loop between batches: a huge file's chunks do not hold pings (issue #34).
    await new Promise<void>((r) => setImmediate(r));
  }
  const stopped = aborted();
  if (!stopped) {
    if (reader !== FACTS_READER) store.meta.setMeta(READER_KEY, FACTS_READER);
    if (initial) store.meta.setMeta(FIRST_PASS_KEY, "done");
  }
  const link = stopped ? { statements: 0, slots: 0, written: 0 } : relinkChanged(store);
  return {
    chunks,
    statements: repo.statementCount(),
    linked: link.statements > 0,
    slotsRelinked: link.slots,
    slotsWritten: link.written,
    ms: performance.now() - t0,
    aborted: stopped,
  };
}
