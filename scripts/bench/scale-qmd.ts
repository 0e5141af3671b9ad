import { existsSync } from "node:fs";
import { ensureQmd, openQmdStore, qmdEnv, qmdIndexPath, timeProcess, type QmdStore } from "./qmd-peer.js";
import { benchPath, fmtMs, freshDir } from "./util.js";

/** QMD on the scale bench's corpus: its index (built in this run, or kept from one) and its SDK store. */
export interface QmdSide {
  version: string;
  /** Wall time of `qmd collection add` (a process), or null when a kept index was reused. */
  coldMs: number | null;
  store: QmdStore;
}

/**
 * Indexes the workspace with QMD (`qmd collection add`: its keyword index; markdown only, so the
 * transcripts cortexd also indexes are not in it) and opens it in this process for `searchLex`.
 * `reuse`: keep the index a previous run built for these files.
 */
export async function qmdOnCorpus(root: string, files: number, reuse: boolean): Promise<QmdSide> {
  const qmd = ensureQmd();
  const path = benchPath(`home-scale-${files}-qmd`);
  const reused = reuse && existsSync(qmdIndexPath(path));
  let coldMs: number | null = null;
  if (!reused) {
    freshDir(path);
    coldMs = timeProcess(qmd.bin, ["collection", "add", root, "--name", "ws"], qmdEnv(path));
  }
  console.log(`\n[qmd ${qmd.version}] ${reused ? "its kept index" : `collection add (cold index) ${fmtMs(coldMs!)}`}`);
  return { version: qmd.version, coldMs, store: await openQmdStore(qmd, qmdIndexPath(path)) };
}
