import { existsSync } from "node:fs";
import { basename } from "node:path";
import { builtinModelPath } from "../embed/builtin/ensure.js";
import { localModelFileIdentity } from "../embed/model-identity.js";
import { configuredFile, modelsDir, selectProvider, type ProviderStatus } from "../embed/select.js";
import type { SyncOptions, SyncReport } from "../indexer/sync.js";
import type { Engine, WorkspaceEngine } from "./engine.js";

export interface OnDemandOptions {
  sync?: Omit<SyncOptions, "onProgress">;
  /** A progress callback per workspace sync (e.g. a progress bar), and its end. */
  progress?: () => { update: NonNullable<SyncOptions["onProgress"]>; stop: () => void };
  onModelBuildProgress?: (p: { phase: string; done: number; total: number }) => void;
}

/**
 * The model file whose vectors the config asks for, when its identity can be read from disk
 * without loading it (the built-in model, a configured GGUF path); null otherwise (remote, hf:).
 */
function modelFile(engine: Engine): string | null {
  const cfg = engine.config.embedding;
  if (cfg.provider === "none" || cfg.provider === "openai-compatible" || cfg.provider === "ollama") return null;
  if (cfg.model) return configuredFile(cfg) ?? null;
  if (cfg.provider === "local") return null;
  return builtinModelPath(modelsDir(engine.dataDir));
}

/** True when every target's vectors are complete and come from `identity`. */
function vectorsCurrent(targets: readonly WorkspaceEngine[], identity: string): boolean {
  return targets.every((w) => {
    const stored = w.store.getVectorIdentity();
    return stored?.identity === identity && w.store.counts().pending === 0;
  });
}

/** The two passes as one report (the second pass finds the first's files unchanged). */
function merge(a: SyncReport, b: SyncReport): SyncReport {
  const out: SyncReport = { ...a, ...b, unchanged: a.unchanged };
  for (const k of [
    "added",
    "changed",
    "removed",
    "renamed",
    "appended",
    "chunksWritten",
    "chunksRemoved",
    "embedded",
    "cacheHits",
    "noVector",
    "malformedLines",
    "ms",
  ] as const) {
    out[k] = a[k] + b[k];
  }
  out.skipped = b.skipped.length ? b.skipped : a.skipped;
  out.repaired = b.repaired?.length ? b.repaired : a.repaired;
  return out;
}

/**
 * Syncs the targets of an engine opened with `deferProvider`, loading the embedding model only
 * when something needs it: the files are synced first (new chunks wait for vectors), then, when a
 * chunk waits or the index's vectors are not the configured model's (told by the file's hash), the
 * model is loaded and a second pass embeds what waits (through the vector cache). With nothing
 * changed, `cortexd index` so costs a scan, not a model load.
 */
export async function syncLoadingModelOnDemand(
  engine: Engine,
  targets: readonly WorkspaceEngine[],
  opts: OnDemandOptions = {},
): Promise<{ reports: SyncReport[]; status: ProviderStatus }> {
  // The second pass only embeds what waits: with --force it would re-chunk every file again (and count each twice).
  const run = async (pass: "first" | "second" = "first"): Promise<SyncReport[]> => {
    const out: SyncReport[] = [];
    for (const ws of targets) {
      const bar = opts.progress?.();
      try {
        out.push(
          await ws.indexer.sync({
            ...opts.sync,
            ...(pass === "second" ? { force: false } : {}),
            ...(bar ? { onProgress: bar.update } : {}),
          }),
        );
      } finally {
        bar?.stop();
      }
    }
    return out;
  };
  const reports = await run();
  const cfg = engine.config.embedding;
  if (cfg.provider === "none")
    return { reports, status: (await selectProvider(cfg, { dataDir: engine.dataDir })).status };
  const file = modelFile(engine);
  const identity = file && existsSync(file) ? await localModelFileIdentity(file).catch(() => null) : null;
  if (identity && targets.every((w) => w.store.vecAvailable) && vectorsCurrent(targets, identity)) {
    const dims = targets[0]?.store.getVectorIdentity()?.dims;
    const status: ProviderStatus = {
      state: "ready",
      provider: cfg.provider,
      model: basename(file!),
      identity,
      ...(dims ? { dims } : {}),
      source: cfg.model ? "configured" : "builtin",
      file: file!,
    };
    return { reports, status };
  }
  const selected = await selectProvider(cfg, {
    dataDir: engine.dataDir,
    logger: engine.logger,
    ...(opts.onModelBuildProgress ? { onBuildProgress: opts.onModelBuildProgress } : {}),
  });
  await engine.setProvider(selected);
  if (!selected.provider) return { reports, status: selected.status };
  const second = await run("second");
  return { reports: reports.map((r, i) => merge(r, second[i]!)), status: selected.status };
}
