import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { daemonsPerTest, startDaemon, waitUntil } from "./helpers/daemon.js";
import { bareRemoteAndTwoClones, gitOk } from "./helpers/git.js";

/**
 * After a pull that brings many files, the index catches up in one pass: 500 files arrive with one
 * `git pull` in the daemon's clone, and every one of them becomes searchable. The time it took is
 * printed (with the load), not asserted: this machine's timing is not a test's business.
 */
const { track } = daemonsPerTest();
const FILES = 500;

describe("catch-up after a large pull", () => {
  it(`indexes ${FILES} pulled files, all searchable`, async () => {
    const { desktop, laptop } = bareRemoteAndTwoClones();
    const d = track(
      await startDaemon({
        home: laptop.home,
        config: { workspaces: [{ path: laptop.root }], daemon: { debounceMs: 300, settleMs: 50 } },
      }),
    );
    await waitUntil(async () => (await d.call("cortex.status", {})).workspaces[0]!.lastSync !== null, 30_000);
    mkdirSync(join(desktop.root, "memory", "projects"), { recursive: true });
    for (let i = 0; i < FILES; i++) {
      const day = new Date(Date.UTC(2025, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
      const rel = i % 2 ? `memory/${day}.md` : `memory/projects/${day}-notes.md`;
      writeFileSync(
        join(desktop.root, rel),
        `# ${day}\n\n- Decision ${i}: ticket zq${i}x goes to the platform team\n- Standup moved to room ${i % 7}\n`,
      );
    }
    gitOk(desktop.root, desktop.home, "add", "-A");
    gitOk(desktop.root, desktop.home, "commit", "-q", "-m", "500 days of memory");
    gitOk(desktop.root, desktop.home, "push", "-q", "origin", "main");
    const t0 = performance.now();
    gitOk(laptop.root, laptop.home, "pull", "-q", "--no-rebase", "origin", "main");
    const pulled = performance.now();
    await waitUntil(async () => (await d.call("cortex.status", {})).workspaces[0]!.files === FILES + 1, 60_000, 50);
    const indexed = performance.now();
    for (const i of [0, 1, 250, FILES - 1]) {
      const r = await d.call("memory.search", { query: `zq${i}x` });
      expect(r.results[0]?.snippet).toContain(`zq${i}x`);
    }
    const load = loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
    console.log(
      `catch-up: git pull of ${FILES} files ${Math.round(pulled - t0)} ms, then all indexed and searchable ${Math.round(indexed - pulled)} ms after it (load ${load})`,
    );
  });
});
