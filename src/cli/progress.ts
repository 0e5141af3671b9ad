import cliProgress from "cli-progress";
import type { SyncProgress } from "../indexer/sync.js";
import { formatEta } from "./progress-eta.js";

/** A progress bar on stderr for `cortexd index` when stderr is a terminal; a no-op otherwise. */
export function syncProgressBar(enabled: boolean): { update: (p: SyncProgress) => void; stop: () => void } {
  if (!enabled || !process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: " {phase} [{bar}] {value}/{total} {unit} | {chunks} chunks | {embedded} embedded | ETA {eta}",
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  let phase = "";
  let phaseStart = Date.now();
  let firstDone = 0;
  return {
    update(p) {
      if (p.phase === "scan") return;
      const name = p.phase === "vectors" ? "embedding" : "indexing";
      // Each phase has its own total (files, then chunks) and its own rate.
      if (name !== phase) {
        phase = name;
        phaseStart = Date.now();
        firstDone = p.filesDone;
      }
      const total = Math.max(p.filesTotal, 1);
      const done = Math.min(p.filesDone, total);
      const payload = {
        phase: name,
        unit: p.phase === "vectors" ? "chunks to embed" : "files",
        chunks: p.chunks,
        embedded: p.embedded,
        eta: formatEta(done - firstDone, total - firstDone, Date.now() - phaseStart),
      };
      if (!started) {
        bar.start(total, done, payload);
        started = true;
      } else {
        bar.setTotal(total);
        bar.update(done, payload);
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

/** Progress line for building the built-in model (one line, rewritten). */
export function modelBuildProgress(enabled: boolean): (p: { phase: string; done: number; total: number }) => void {
  if (!enabled || !process.stderr.isTTY) return () => {};
  let last = "";
  return (p) => {
    const pct = p.total > 0 ? Math.floor((100 * p.done) / p.total) : 0;
    const line = `building the built-in embedding model: ${p.phase} ${pct}%`;
    if (line === last) return;
    last = line;
    process.stderr.write(`\r${line}${p.done >= p.total ? "\n" : ""}`);
  };
}
