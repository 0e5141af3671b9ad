import { replaceFrontmatter } from "./frontmatter.js";
import { chunkMarkdown } from "./markdown.js";
import { chunkTranscript, parseTranscript } from "./transcript.js";
import type { Chunk, ChunkerStart, ChunkerTail, ChunkingOptions, FileClass } from "./types.js";
import { lineVisibilities, visibilityRuns } from "../visibility/line-tags.js";
import type { Visibility } from "../visibility/visibility.js";

/** Bumped whenever chunking output changes for the same input: a mismatch re-chunks every file. */
export const CHUNKING_VERSION = 4;

export interface FileChunks {
  chunks: Chunk[];
  /** JSONL lines that were not valid records (transcripts). */
  malformed: number;
  /** Lines of the source that were consumed. */
  lines: number;
}

/**
 * An index of memory files (Claude Code's auto-memory `MEMORY.md`: `- [Title](topic.md) — hook`):
 * each link to a file beside it is written with that file's absolute path, so a hit on an index
 * line names the topic file it stands for (a model opens it with memory_get or its own Read).
 * Line numbers are unchanged.
 */
export function linkIndexLines(text: string, dir: string): string {
  return text.replace(/\]\(([^()\s/:#?]+\.md)\)/gi, (_m, name: string) => `](${dir.replace(/\/+$/, "")}/${name})`);
}

/** Chunks one file's text according to its class; `indexDir`: the folder of a memory index (see linkIndexLines). */
export function chunkFile(
  cls: FileClass,
  text: string,
  opts: ChunkingOptions,
  indexDir?: string,
  /** Told where a daily log's or note's chunking could resume (not for curated files or transcripts). */
  tail?: (t: ChunkerTail | null) => void,
): FileChunks {
  if (indexDir !== undefined) text = linkIndexLines(text, indexDir);
  if (cls === "transcript") {
    const { messages, stats } = parseTranscript(text);
    return { chunks: chunkTranscript(messages, opts), malformed: stats.malformed, lines: countLines(text) };
  }
  // Frontmatter is metadata: one header line stands for it (ingest/frontmatter.ts).
  const body = replaceFrontmatter(text);
  if (cls === "curated") {
    const chunks = chunkMarkdown(body, { ...opts, perEntry: true }).map((c) => ({ ...c, visibility: "private" }));
    return { chunks, malformed: 0, lines: countLines(text) };
  }
  return { chunks: chunkTagged(body, opts, { tail }), malformed: 0, lines: countLines(text) };
}

/**
 * Chunks a daily log or note: each entry's tag says who may see it (visibility/line-tags.ts), and a
 * chunk never mixes two visibilities. `from`/`tail`: resume inside a log (ingest/markdown-resume.ts).
 */
export function chunkTagged(
  body: string,
  opts: ChunkingOptions,
  resume: { from?: ChunkerStart; tail?: ((t: ChunkerTail | null) => void) | undefined } = {},
  /** The visibility of each line (computed here when not given). */
  lineVis?: readonly Visibility[],
): Chunk[] {
  const vis = lineVis ?? lineVisibilities(body.replace(/\r\n/g, "\n").split("\n"));
  const runs = visibilityRuns(vis);
  const tail = resume.tail && ((t: ChunkerTail | null) => resume.tail!(t && { ...t, vis: vis[t.line] ?? "open" }));
  return chunkMarkdown(body, {
    ...opts,
    ...(runs.length > 1 ? { ranges: runs } : {}),
    ...(resume.from ? { from: resume.from } : {}),
    ...(tail ? { tail } : {}),
  }).map((c) => ({
    ...c,
    visibility: vis[c.startLine - 1] ?? "open",
  }));
}

function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return text.endsWith("\n") ? n - 1 : n;
}
