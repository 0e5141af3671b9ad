import { replaceFrontmatter } from "./frontmatter.js";
import { chunkMarkdown } from "./markdown.js";
import { chunkTranscript, parseTranscript } from "./transcript.js";
import type { Chunk, ChunkingOptions, FileClass } from "./types.js";
import { lineVisibilities, visibilityRuns } from "../visibility/line-tags.js";

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
export function chunkFile(cls: FileClass, text: string, opts: ChunkingOptions, indexDir?: string): FileChunks {
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
  // Each entry's tag says who may see it (visibility/line-tags.ts): a chunk never mixes two visibilities.
  const vis = lineVisibilities(body.replace(/\r\n/g, "\n").split("\n"));
  const runs = visibilityRuns(vis);
  const chunks = chunkMarkdown(body, { ...opts, ...(runs.length > 1 ? { ranges: runs } : {}) }).map((c) => ({
    ...c,
    visibility: vis[c.startLine - 1] ?? "open",
  }));
  return { chunks, malformed: 0, lines: countLines(text) };
}

function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return text.endsWith("\n") ? n - 1 : n;
}
