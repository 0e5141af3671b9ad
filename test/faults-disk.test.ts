import { spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { generateWorkspace } from "../scripts/bench/generate.js";
import { AppendError, appendLines } from "../src/memory-files/append.js";
import { startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { tempDir } from "./helpers/workspace.js";

/**
 * A full disk, for real: a small tmpfs mounted for the test (needs root, as in CI; skipped
 * elsewhere). Writes past its size fail with ENOSPC, which SQLite reports as SQLITE_FULL.
 */
const mounts: string[] = [];
function mountTmpfs(sizeKb: number): string | null {
  const dir = tempDir("cortexd-tmpfs-");
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${sizeKb}k,mode=0700`, "tmpfs", dir], { encoding: "utf8" });
  if (r.status !== 0) return null;
  mounts.push(dir);
  return dir;
}
afterAll(() => {
  for (const m of mounts.splice(0)) spawnSync("umount", ["-l", m]);
});

/** Fills the filesystem of `dir` up to ENOSPC with one file; returns its path (unlink it to free the space). */
function fill(dir: string): string {
  const f = join(dir, "filler");
  const block = Buffer.alloc(16 * 1024, 1);
  try {
    for (;;) appendFileSync(f, block);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e;
  }
  return f;
}

const canMount = (() => {
  if (process.getuid?.() !== 0) return false;
  return mountTmpfs(64) !== null;
})();

const running: TestDaemon[] = [];
afterEach(async () => {
  for (const d of running.splice(0)) await d.stop();
});

describe.skipIf(!canMount)("disk full (a real tmpfs filled to ENOSPC)", () => {
  let fs: string;
  beforeAll(() => {
    fs = mountTmpfs(12 * 1024)!;
  });

  it("the index's disk fills: status says so, searches keep answering, indexing resumes by itself when space returns", async () => {
    const root = join(tempDir(), "ws");
    generateWorkspace(root, 30, 5);
    const dataDir = join(fs, "data");
    const d = await startDaemon({
      config: { workspaces: [{ path: root }], daemon: { debounceMs: 50, settleMs: 20 } },
      env: { CORTEXD_DATA_DIR: dataDir },
    });
    running.push(d);
    await d.call("index.sync", {});
    const before = await d.call("memory.search", { query: "deploy release pipeline" });
    expect(before.results.length).toBeGreaterThan(0);

    const filler = fill(fs);
    // A large new log: its chunks cannot fit in the index any more.
    const big = Array.from(
      { length: 3000 },
      (_, i) => `- zephyrquill entry ${i} about the lighthouse ledger and its ${i % 17} brass gears.`,
    ).join("\n");
    writeFileSync(join(root, "memory", "2026-11-28.md"), `# 2026-11-28\n\n${big}\n`);
    await waitUntil(
      async () => /disk full/.test((await d.call("cortex.status", {})).workspaces[0]!.lastError ?? ""),
      15_000,
    );
    const st = await d.call("cortex.status", {});
    expect(st.healthy).toBe(false);
    expect(st.workspaces[0]!.lastError).toMatch(
      /^disk full: cannot write the index in .*SQLITE_FULL|database or disk is full/,
    );
    // Reads keep working from the index as it was.
    expect((await d.call("memory.search", { query: "deploy release pipeline" })).results.length).toBe(
      before.results.length,
    );
    expect((await d.call("memory.recall", { query: "deploy release pipeline" })).memory_count).toBeGreaterThan(0);
    expect((await d.call("memory.search", { query: "zephyrquill" })).results.length).toBe(0);
    // A save still lands in the memory files (they are on another disk); its indexing waits.
    const saved = await d.call("memory.save", { text: "The quillwort audit moved to Thursday." });
    expect(saved.stored).toBe(true);
    expect(readFileSync(join(root, saved.path), "utf8")).toContain("quillwort audit");

    unlinkSync(filler);
    // No file event needed: the failed sync retries with backoff.
    await waitUntil(async () => (await d.call("memory.search", { query: "zephyrquill" })).results.length > 0, 20_000);
    await waitUntil(async () => (await d.call("memory.search", { query: "quillwort" })).results.length > 0, 10_000);
    const after = await d.call("cortex.status", {});
    expect(after.workspaces[0]!.lastError).toBeNull();
    expect(d.stderr()).toMatch(/indexing works again/);
  }, 60_000);

  it("a save that does not fit: a clear error, and the memory file is left exactly as it was", async () => {
    const small = mountTmpfs(256)!;
    const file = join(small, "memory", "2026-11-29.md");
    mkdirSync(join(small, "memory"));
    writeFileSync(file, "# 2026-11-29\n\n- An earlier entry.\n");
    const original = readFileSync(file);
    // Leave 8 KiB free, less than the entry: the write starts, then runs out of space half-way.
    const room = join(small, "room");
    writeFileSync(room, Buffer.alloc(8 * 1024, 1));
    fill(small);
    unlinkSync(room);
    const entry = Array.from({ length: 400 }, (_, i) => `- line ${i} of a long entry that does not fit on this disk`);
    const err = await appendLines(file, entry).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppendError);
    expect((err as Error).message).toMatch(
      /could not append to .*2026-11-29\.md: the disk is full .*\[ENOSPC\]; nothing was written/,
    );
    expect(readFileSync(file).equals(original)).toBe(true);
  });
});
