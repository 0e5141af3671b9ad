import { copyFile, open, rename, unlink } from "node:fs/promises";
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { IndexStore } from "../index/repos/store.js";
import { appendLines, KeyedLock } from "../memory-files/append.js";
import { localDate } from "../memory-files/entry.js";
import { bodyText } from "./entries.js";
import type { PromotionCandidate } from "../rpc/protocol.js";
import { ReadFileError, readRegularText } from "../util/regular-file.js";
import { UnusableFileError } from "../util/unusable-file.js";
import { MEMORY_FILE, memoryFilePath } from "../workspace/layout.js";

export type { PromotionCandidate };

/** MEMORY.md is read whole to leave out what it already says: at most this large (far above any real one). */
const MAX_MEMORY_MD_BYTES = 16 * 1024 * 1024;

/**
 * MEMORY.md's text ("" when missing), through the regular-file reader: a FIFO, a device or a file
 * over the cap is an error saying so, never a blocked or unbounded read.
 */
async function memoryText(memPath: string, root: string): Promise<string> {
  try {
    return await readRegularText(memPath, { maxBytes: MAX_MEMORY_MD_BYTES, root });
  } catch (e) {
    if (!(e instanceof ReadFileError)) throw e;
    if (e.kind === "vanished" && e.message === "does not exist") return "";
    const why = `cannot read ${memPath}: ${e.message}; nothing was promoted; make it a regular file inside the workspace`;
    if (e.notRegular || e.kind === "too-large" || e.kind === "unreadable") throw new UnusableFileError(memPath, why);
    throw new Error(why, { cause: e });
  }
}

/** Promotion rule (the reference engine's "dreaming" constants): ≥ 3 recalls from ≥ 3 distinct queries within 30 days. */
export const PROMOTION = { minRecalls: 3, minQueries: 3, maxAgeDays: 30 } as const;

/** Normalised entry lines for MEMORY.md: headings dropped, each remaining line kept; a bare paragraph becomes a bullet. */
export function promotedLines(text: string): string[] {
  const body = bodyText(text)
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== "");
  if (body.length === 0) return [];
  if (!/^\s*[-*+]\s|^\s*\d+[.)]\s/.test(body[0]!)) body[0] = `- ${body[0]!.trim()}`;
  return body;
}

function normalise(s: string): string {
  return s
    .toLowerCase()
    .replace(/^\s*[-*+]\s+/gm, "")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Entries recalled often enough (see PROMOTION), still indexed in a daily log or note, not superseded,
 * not a non-newest duplicate, not promoted before, and not already written in MEMORY.md.
 */
export async function promotionCandidates(
  store: IndexStore,
  root: string,
  now = Date.now(),
): Promise<PromotionCandidate[]> {
  const since = now - PROMOTION.maxAgeDays * 86_400_000;
  const rows = store.recalls.frequentRecalls(since, PROMOTION.minRecalls, PROMOTION.minQueries);
  if (rows.length === 0) return [];
  const memPath = memoryFilePath(root);
  const existing = normalise(await memoryText(memPath, root));
  const out: PromotionCandidate[] = [];
  for (const r of rows) {
    const c = store.chunks.promotableChunk(r.hash);
    if (!c) continue;
    // Lines MEMORY.md already says (written by hand, or promoted from another copy) are left out.
    const lines = promotedLines(c.text).filter((l) => !existing.includes(normalise(l)));
    if (lines.length === 0 || lines.every((l) => /^\s*$/.test(l))) continue;
    if (!/^\s*[-*+]\s|^\s*\d+[.)]\s/.test(lines[0]!)) lines[0] = `- ${lines[0]!.trim()}`;
    out.push({
      hash: r.hash,
      path: c.path,
      startLine: c.startLine,
      endLine: c.endLine,
      recalls: r.recalls,
      queries: r.queries,
      lastRecall: new Date(r.lastAt).toISOString(),
      text: lines.join("\n"),
    });
  }
  return out;
}

export interface PromotionResult {
  applied: number;
  candidates: PromotionCandidate[];
  /** Where MEMORY.md was copied before the append (absent when nothing was appended or the file did not exist). */
  backup?: string;
  heading?: string;
}

/**
 * Appends the candidates to MEMORY.md under "## Promoted YYYY-MM-DD" after copying it to
 * MEMORY.md.bak-<timestamp>; one O_APPEND write, nothing rewritten. Each promoted chunk is
 * recorded, so a second run adds nothing (also when the person later deletes the section).
 */
export function applyPromotions(store: IndexStore, root: string, now = Date.now()): Promise<PromotionResult> {
  return promoteLock.run(root, () => applyLocked(store, root, now));
}

/**
 * After a promotion appended to MEMORY.md: index it now, through the caller's sync (the daemon's queue
 * or a one-shot indexer), so the promoted entries are searchable before the watcher would get to it.
 */
export function indexPromoted<T>(sync: (opts: { paths: string[] }) => Promise<T>): Promise<T> {
  return sync({ paths: [MEMORY_FILE] });
}

/**
 * The backup is copied to a dot-temp file, synced and renamed into place: a crash leaves either a
 * complete backup or none (never a half one someone might restore from), and the append to
 * MEMORY.md only happens after the backup is on disk.
 */
async function copyDurably(from: string, to: string): Promise<void> {
  const tmp = join(dirname(to), `.${basename(to)}.${process.pid}.tmp`);
  try {
    await copyFile(from, tmp);
    const fh = await open(tmp, "r+");
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, to);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
}

/** Two applies of one workspace never interleave (each sees what the other recorded). */
const promoteLock = new KeyedLock();

async function applyLocked(store: IndexStore, root: string, now: number): Promise<PromotionResult> {
  const candidates = await promotionCandidates(store, root, now);
  if (candidates.length === 0) return { applied: 0, candidates };
  const memPath = memoryFilePath(root);
  let backup: string | undefined;
  if (existsSync(memPath)) {
    backup = `${memPath}.bak-${new Date(now).toISOString().replace(/[:.]/g, "-")}`;
    await copyDurably(memPath, backup);
  }
  const date = localDate(now);
  const heading = `## Promoted ${date}`;
  const lines = ["", heading, ""];
  for (const c of candidates)
    lines.push(
      ...c.text.split("\n"),
      `  <!-- promoted from ${c.path}:${c.startLine}-${c.endLine} (${c.recalls} recalls, ${c.queries} queries) -->`,
    );
  await appendLines(memPath, lines, { header: "# MEMORY\n", root });
  store.records.recordPromotions(candidates, now, backup ?? null);
  return { applied: candidates.length, candidates, ...(backup ? { backup } : {}), heading };
}
