import { copyFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateWorkspace } from "../scripts/bench/generate.js";
import { printSoak, runSoak } from "../scripts/bench/soak.js";
import { BUILTIN_BUILDER_VERSION } from "../src/embed/builtin/build.js";
import { ensureBuiltinModel } from "../src/embed/builtin/ensure.js";
import { startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { tempDir } from "./helpers/workspace.js";

/**
 * The short CI version of `npm run bench -- soak`: a real child daemon with the built-in model,
 * 8 clients issuing searches, recalls and saves for 20 s while a writer edits, creates, rewrites
 * and deletes memory files. Nothing may fail, the index must match the disk afterwards, every
 * checked save must be found, and memory must not keep growing.
 */
let d: TestDaemon;
let root: string;

beforeAll(async () => {
  const home = tempDir("cortexd-soak-");
  root = join(home, "ws");
  generateWorkspace(root, 300, 11);
  // The built-in model, built once per machine for the tests, copied where the daemon looks for it.
  const model = await ensureBuiltinModel(
    join(os.tmpdir(), "cortexd-test-models", `builtin-v${BUILTIN_BUILDER_VERSION}`),
  );
  const models = join(home, ".local/share/cortexd/models");
  mkdirSync(models, { recursive: true });
  copyFileSync(model, join(models, "cortexd-glove-100d-sif.gguf"));
  d = await startDaemon({
    home,
    config: {
      workspaces: [{ path: root }],
      embedding: { provider: "auto" },
      daemon: { debounceMs: 200, settleMs: 50 },
    },
    env: { CORTEXD_EMBEDDING_PROVIDER: "auto" },
  });
  await waitUntil(
    async () => {
      const st = await d.call("cortex.status", {});
      const w = st.workspaces[0]!;
      return st.embedding.state === "ready" && w.lastSync !== null && w.dirty === 0 && w.pending === 0 && w.vectors > 0;
    },
    120_000,
    200,
  );
});

afterAll(async () => {
  await d?.stop();
});

describe("sustained load (short soak)", () => {
  it("8 clients × 20 s of mixed search/recall/save while files change: no errors, no drift, no lost saves", async () => {
    const res = await runSoak({
      socket: d.socket,
      pid: d.child.pid!,
      root,
      clients: 8,
      durationMs: 20_000,
      editMs: 150,
      sampleMs: 1000,
    });
    printSoak(res);
    expect(res.errors).toEqual([]);
    expect(res.daemonErrors).toEqual([]);
    expect(res.daemonAlive).toBe(true);
    expect(res.ops.search.n).toBeGreaterThan(50);
    expect(res.ops.recall.n).toBeGreaterThan(20);
    expect(res.ops.save.n).toBeGreaterThan(5);
    expect(res.edits).toBeGreaterThan(50);
    expect(res.driftAfterSettle).toBe(0);
    expect(res.lostSaves).toBe(0);
    // Loose sanity bounds only (the machine is shared): the figures belong to the bench.
    expect(res.rssGrowthMb).toBeLessThan(150);
    expect(res.ops.search.p99).toBeLessThan(5_000);
    expect(d.child.exitCode).toBeNull();
  }, 120_000);
});
