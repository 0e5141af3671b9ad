import { chunkFile } from "../ingest/chunk-file.js";
import { scanConflicts } from "../ingest/conflict-markers.js";
import { chunkNoteFrom, resumePointOf } from "../ingest/markdown-resume.js";
import type { Chunk, ChunkerTail, ChunkingOptions } from "../ingest/types.js";
import { TRANSCRIPT_START, chunkTranscriptFrom } from "../ingest/transcript-incremental.js";
import { chunkHash } from "../util/hash.js";
import { isJsonlTranscript } from "../workspace/classify.js";
import type { FileMeta, FileRow, FileStamp, StoredChunkInput } from "../index/repos/files-repo.js";
import type { IndexStore } from "../index/repos/store.js";
import type { SyncReport } from "./sync-report.js";
import type { Loaded } from "./sync-read.js";
import { fileVisibilityOf, withVisibility } from "./sync-visibility.js";

/** Sync, deciding phase: what one changed file needs written (touch, rename, delete, or new chunks). */
export type PreparedFile =
  | { kind: "touch"; id: number; size: number; mtimeMs: number }
  | { kind: "rename"; from: string; meta: FileMeta }
  | { kind: "delete"; path: string }
  /** `had`: the file's chunks in the index before, when known (a large rewrite removes them in slices). */
  | { kind: "replace"; meta: FileMeta; keep: number; chunks: StoredChunkInput[]; had?: number }
  /** A markdown log's tail was not enough to chunk it (ingest/markdown-resume.ts): read it whole. */
  | { kind: "reread" };

/**
 * Chunks indexed per file at most: a file's chunks are written in one transaction, so this bounds how
 * long one file can hold the event loop (a 50 MB single line would be 32,768 chunks, > 1 s).
 * With the character cap (chunking is synchronous too), about 2 MB of text; the rest of a larger file is reported
 * (`repaired`, kind "chunk-cap"), not silently dropped.
 */
export const MAX_CHUNKS_PER_FILE = 2048;
/** Characters of a markdown file chunked at most (about what the chunk cap holds): chunking is synchronous. */
export const MAX_CHUNKED_CHARS = 2 * 1024 * 1024;

function capReason(chunks: Chunk[]): string {
  const last = chunks[chunks.length - 1]?.endLine ?? 0;
  return `indexed up to line ${last} only: the file is over the per-file cap (${MAX_CHUNKS_PER_FILE} chunks, ${MAX_CHUNKED_CHARS} characters); split it to have the rest searchable`;
}

/** The text to chunk: at most MAX_CHUNKED_CHARS, cut after a line when one ends in its second half. */
function capText(text: string): { text: string; cut: boolean } {
  if (text.length <= MAX_CHUNKED_CHARS) return { text, cut: false };
  const nl = text.lastIndexOf("\n", MAX_CHUNKED_CHARS);
  return { text: text.slice(0, nl > MAX_CHUNKED_CHARS / 2 ? nl + 1 : MAX_CHUNKED_CHARS), cut: true };
}

function capChunks(path: string, chunks: Chunk[], cut: boolean, report: SyncReport): Chunk[] {
  if (chunks.length <= MAX_CHUNKS_PER_FILE && !cut) return chunks;
  const kept = chunks.slice(0, MAX_CHUNKS_PER_FILE);
  report.repaired.push({ path, kind: "chunk-cap", reason: capReason(kept) });
  return kept;
}

/** Decides what a changed file needs (in scan order, so renames are detected deterministically). */
export function prepareFile(
  store: IndexStore,
  chunking: ChunkingOptions,
  loaded: Loaded,
  row: FileRow | undefined,
  goneBySha: Map<string, FileStamp[]>,
  force: boolean,
  report: SyncReport,
  /** Told how many git conflict blocks each markdown file holds (0: none). */
  markConflicts: (path: string, blocks: number) => void = () => {},
): PreparedFile | null {
  const { file, buf, hash } = loaded;
  if (loaded.skip !== undefined || !buf || !hash) {
    report.skipped.push({ path: file.path, ...(loaded.skip ?? { kind: "unreadable", reason: "unreadable" }) });
    return row ? { kind: "delete", path: file.path } : null;
  }
  if (loaded.repaired) report.repaired.push({ path: file.path, kind: "invalid-utf8", reason: loaded.repaired });
  const size = loaded.append ? file.size : buf.length;
  const meta: FileMeta = {
    path: file.path,
    class: file.class,
    date: file.date,
    size,
    mtimeMs: file.mtimeMs,
    sha256: hash.hash,
    hashOffset: hash.resume.offset,
    hashState: hash.resume.state,
  };
  if (row && !force && row.sha256 === hash.hash) {
    report.unchanged++; // touched: same content, new mtime
    return { kind: "touch", id: row.id, size, mtimeMs: file.mtimeMs };
  }
  const moved = !row && !force ? goneBySha.get(hash.hash)?.shift() : undefined;
  if (moved) {
    report.renamed++;
    return { kind: "rename", from: moved.path, meta };
  }
  if (loaded.append && row && !isJsonlTranscript(file)) return prepareNoteAppend(store, chunking, loaded, meta, report);
  if (loaded.append && row) {
    // Appended transcript: re-chunk from the last stored chunk only.
    const t = chunkTranscriptFrom(buf, loaded.append, chunking);
    report.malformedLines += Math.max(0, t.malformed - row.malformed);
    report.changed++;
    report.appended++;
    return {
      kind: "replace",
      meta: { ...meta, indexedLines: t.lines, malformed: t.malformed, resume: t.resume },
      keep: loaded.append.seq,
      chunks: withVisibility(t.chunks, fileVisibilityOf(store, file)).map((c) => ({ ...c, hash: chunkHash(c.text) })),
    };
  }
  let chunks: Chunk[];
  let full: FileMeta;
  let cut = false;
  if (isJsonlTranscript(file)) {
    const t = chunkTranscriptFrom(buf, TRANSCRIPT_START, chunking);
    report.malformedLines += t.malformed;
    chunks = t.chunks;
    full = { ...meta, indexedLines: t.lines, malformed: t.malformed, resume: t.resume };
  } else {
    // An unfinished git merge: index what the file says, not the markers (see ingest/conflict-markers).
    const capped = capText(loaded.text ?? buf.toString("utf8"));
    cut = capped.cut;
    const conflicts = scanConflicts(capped.text);
    markConflicts(file.path, conflicts.blocks);
    // A MEMORY.md outside the root (Claude Code's auto-memory index) links to its topic files.
    const indexDir =
      file.path.startsWith("/") && file.path.endsWith("/MEMORY.md")
        ? file.absPath.slice(0, -"/MEMORY.md".length)
        : undefined;
    // A markdown transcript (sessions/*.md) is chunked as the markdown it is, and stays a transcript.
    let tail: ChunkerTail | null = null;
    const chunked = chunkFile(
      file.class === "transcript" ? "note" : file.class,
      conflicts.text,
      chunking,
      indexDir,
      (t) => (tail = t),
    );
    chunks = chunked.chunks;
    // Where the next append's chunking can resume (ingest/markdown-resume.ts), when nothing was cut or repaired.
    const resumable = !cut && !loaded.repaired && chunks.length <= MAX_CHUNKS_PER_FILE;
    const resume = resumable ? resumePointOf({ text: conflicts.text, line: 0, offset: 0, seq: 0 }, tail) : null;
    full = { ...meta, indexedLines: chunked.lines, malformed: 0, resume };
  }
  chunks = capChunks(file.path, chunks, cut, report);
  const inputs: StoredChunkInput[] = withVisibility(chunks, fileVisibilityOf(store, file, buf, hash.hash)).map((c) => ({
    ...c,
    hash: chunkHash(c.text),
  }));
  // Keep the unchanged leading chunks (appends to logs and transcripts only rewrite the tail).
  let keep = 0;
  let had: number | undefined;
  if (row && !force) {
    const old = store.chunksOfFile(file.path);
    had = old.length;
    while (
      keep < old.length &&
      keep < inputs.length &&
      old[keep]!.hash === inputs[keep]!.hash &&
      old[keep]!.startLine === inputs[keep]!.startLine &&
      old[keep]!.endLine === inputs[keep]!.endLine
    )
      keep++;
  }
  if (row) report.changed++;
  else report.added++;
  return { kind: "replace", meta: full, keep, chunks: inputs.slice(keep), ...(had !== undefined ? { had } : {}) };
}

/** A markdown log that grew: chunked from its resume point on, the chunks before it kept. */
function prepareNoteAppend(
  store: IndexStore,
  chunking: ChunkingOptions,
  loaded: Loaded,
  meta: FileMeta,
  report: SyncReport,
): PreparedFile {
  const base = loaded.append!;
  const r = chunkNoteFrom(loaded.text!, base, chunking);
  if (!r) return { kind: "reread" };
  let chunks = r.chunks;
  let resume = r.resume;
  const room = Math.max(0, MAX_CHUNKS_PER_FILE - base.seq);
  if (chunks.length > room) {
    chunks = chunks.slice(0, room);
    report.repaired.push({ path: meta.path, kind: "chunk-cap", reason: capReason(chunks) });
    resume = null;
  }
  report.changed++;
  report.appended++;
  return {
    kind: "replace",
    meta: { ...meta, indexedLines: r.lines, malformed: 0, resume },
    keep: base.seq,
    chunks: withVisibility(chunks, fileVisibilityOf(store, loaded.file)).map((c) => ({
      ...c,
      hash: chunkHash(c.text),
    })),
  };
}
