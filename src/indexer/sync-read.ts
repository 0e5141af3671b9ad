import { checkText } from "../ingest/decode.js";
import { unsafeForResume, type ResumePoint } from "../ingest/markdown-resume.js";
import type { ChunkerStart } from "../ingest/types.js";
import { chainedHash, chainedHashInTurns, type ChainedHash } from "../util/chained-hash.js";
import { checkRegular, openNonBlocking, ReadFileError, readRegularFile } from "../util/read-regular.js";
import { isJsonlTranscript } from "../workspace/classify.js";
import { MAX_CHUNKED_CHARS } from "./sync-prepare.js";
import type { SkipKind } from "../workspace/issues.js";
import type { WorkspaceFile } from "../workspace/scan.js";
import type { FileRow } from "../index/repos/files-repo.js";

/** Sync, reading phase: a changed file's bytes, hash and text (or why it is skipped). */
export interface Loaded {
  file: WorkspaceFile;
  buf?: Buffer;
  /** The decoded text (markdown files). */
  text?: string;
  hash?: ChainedHash;
  skip?: { kind: SkipKind; reason: string };
  /** Set when invalid UTF-8 was replaced. */
  repaired?: string;
  /** An appended transcript or markdown log: buf (and text) hold only the bytes from append.offset on. */
  append?: ResumePoint;
}

/** Past this size, hashing and decoding a file are separate turns of the event loop. */
const YIELD_ABOVE_BYTES = 4 * 1024 * 1024;

/** Reads a file (async, in parallel with others) and hashes it. */
export async function loadFile(
  file: WorkspaceFile,
  row: FileRow | undefined,
  force: boolean,
  max: number,
): Promise<Loaded> {
  if (file.size > max) return { file, skip: { kind: "too-large", reason: `larger than ${max} bytes (${file.size})` } };
  if (!force && row && file.size > row.size && row.resumeOffset !== null && row.hashState) {
    if (isJsonlTranscript(file)) {
      const appended = await loadAppend(file, row).catch(() => null);
      if (appended) return withText(appended, appended.buf!, false);
    } else if (row.resumeChunker !== null && file.class !== "curated" && file.size <= MAX_CHUNKED_CHARS) {
      // A markdown log that grew: its tail, unless the tail holds what only a whole read gets right.
      const appended = await loadAppend(file, row).catch(() => null);
      const t = appended && withText(appended, appended.buf!, true);
      if (t && !t.skip && !t.repaired && !unsafeForResume(t.text!)) return t;
    }
  }
  let buf: Buffer;
  try {
    buf = await readRegularFile(file.absPath, max);
  } catch (e) {
    if (e instanceof ReadFileError) return { file, skip: { kind: e.kind, reason: e.message } };
    throw e;
  }
  const big = buf.length > YIELD_ABOVE_BYTES;
  const hash = big ? await chainedHashInTurns(buf) : chainedHash(buf);
  if (big) await new Promise<void>((r) => setImmediate(r)); // let others in between
  const loaded = withText({ file, buf, hash }, buf, !isJsonlTranscript(file));
  if (big) await new Promise<void>((r) => setImmediate(r)); // decoding and chunking are separate turns too
  return loaded;
}

/**
 * A transcript or markdown log that grew: read only from its last chunk (or the last hash block) on, after checking
 * that the bytes it had are unchanged. Returns null when the file was rewritten, not appended to.
 */
async function loadAppend(file: WorkspaceFile, row: FileRow): Promise<Loaded | null> {
  const start = Math.min(row.resumeOffset!, row.hashOffset);
  const fh = await openNonBlocking(file.absPath); // a FIFO never blocks; checkRegular refuses it
  let bytes: Buffer;
  try {
    const size = (await checkRegular(fh, Number.MAX_SAFE_INTEGER)).size;
    bytes = Buffer.alloc(size - start);
    const { bytesRead } = await fh.read(bytes, 0, bytes.length, start);
    bytes = bytes.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
  const from = { offset: row.hashOffset, state: row.hashState! };
  const oldPart = bytes.subarray(row.hashOffset - start, row.size - start);
  if (oldPart.length !== row.size - row.hashOffset || chainedHash(oldPart, from).hash !== row.sha256) return null;
  const base: ResumePoint = {
    offset: row.resumeOffset!,
    line: row.resumeLine!,
    seq: row.resumeSeq!,
    malformed: row.resumeMalformed ?? 0,
    ...(row.resumeChunker ? { chunker: JSON.parse(row.resumeChunker) as ChunkerStart } : {}),
  };
  return {
    file: { ...file, size: start + bytes.length },
    buf: bytes.subarray(row.resumeOffset! - start),
    hash: chainedHash(bytes.subarray(row.hashOffset - start), from),
    append: base,
  };
}

/** Checks that the bytes are text: binary → skipped; invalid UTF-8 here and there → repaired. */
function withText(loaded: Loaded, bytes: Buffer, decode: boolean): Loaded {
  const t = checkText(bytes, { decode, maxChars: MAX_CHUNKED_CHARS });
  if (!t.ok) return { file: loaded.file, skip: { kind: "binary", reason: t.reason } };
  return {
    ...loaded,
    ...(decode ? { text: t.text } : {}),
    ...(t.replaced > 0
      ? { repaired: `${t.replaced} invalid UTF-8 sequence${t.replaced > 1 ? "s" : ""} replaced by U+FFFD` }
      : {}),
  };
}
