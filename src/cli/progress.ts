import cliProgress from "cli-progress";
import type { SyncProgress } from "../index/sync.js";

/** A progress bar on stderr for `cortexd index` when stderr is a terminal; a no-op otherwise. */
export function syncProgressBar(enabled: boolean): { update: (p: SyncProgress) => void; stop: () => void } {
  if (!enabled || !process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: " {phase} [{bar}] {value}/{total} files | {chunks} chunks | {embedded} embedded | ETA {eta_formatted}",
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(p) {
      if (p.phase === "scan") return;
      const payload = {
        phase: p.phase === "vectors" ? "embedding" : "indexing",
        chunks: p.chunks,
        embedded: p.embedded,
      };
      if (!started) {
        bar.start(Math.max(p.filesTotal, 1), p.filesDone, payload);
        started = true;
      } else {
        bar.setTotal(Math.max(p.filesTotal, 1));
        bar.update(p.filesDone, payload);
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
