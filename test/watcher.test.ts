import { appendFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileWatcher } from "../src/daemon/watcher.js";
import { silentLogger } from "../src/util/logger.js";
import { waitUntil } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

const open: FileWatcher[] = [];
afterEach(async () => {
  for (const w of open.splice(0)) await w.close();
});

function watcher(root: string, extra: Partial<ConstructorParameters<typeof FileWatcher>[0]> = {}) {
  const changes: string[][] = [];
  let reconciles = 0;
  const w = new FileWatcher({
    workspaces: [{ name: "ws", target: { root } }],
    mode: "auto",
    debounceMs: 40,
    settleMs: 60,
    pollIntervalMs: 100,
    reconcileIntervalMs: 600_000,
    logger: silentLogger(),
    onChanges: async (_ws, paths) => void changes.push(paths.map((p) => p.slice(root.length + 1)).sort()),
    onReconcile: async () => void reconciles++,
    ...extra,
  });
  open.push(w);
  return { w, changes, reconciles: () => reconciles };
}

describe("file watcher", () => {
  it("reports memory files after the debounce, batched, and ignores everything else", async () => {
    const root = tempDir();
    writeFiles(root, { "memory/.keep.md": "", "sessions/x.txt": "" });
    const { w, changes } = watcher(root);
    await w.start();
    expect(w.status().mode).toBe("watching");
    writeFiles(root, {
      "MEMORY.md": "- a",
      "memory/2026-11-29.md": "b",
      "README.md": "not memory",
      "memory/.obsidian/x.md": "dot dir",
      "notes/y.md": "outside memory/",
    });
    await waitUntil(() => changes.flat().length >= 2);
    await new Promise((r) => setTimeout(r, 200));
    expect(changes.flat().sort()).toEqual(["MEMORY.md", "memory/2026-11-29.md"]);
  });

  it("waits for a file that is still being written (settle check)", async () => {
    const root = tempDir();
    writeFiles(root, { "memory/a.md": "start" });
    const { w, changes } = watcher(root, { debounceMs: 30, settleMs: 150 });
    await w.start();
    const file = join(root, "memory/a.md");
    const writer = setInterval(() => appendFileSync(file, " more"), 40);
    await new Promise((r) => setTimeout(r, 500));
    clearInterval(writer);
    expect(changes).toEqual([]); // never stable while the writer kept going
    await waitUntil(() => changes.length > 0, 3000);
    expect(changes.flat()).toEqual(["memory/a.md"]);
  });

  it("does not hold changes back forever while other files keep changing faster than the debounce", async () => {
    const root = tempDir();
    writeFiles(root, { "memory/.keep.md": "" });
    const { w, changes } = watcher(root, { debounceMs: 300, settleMs: 0 });
    await w.start();
    let n = 0;
    const writer = setInterval(() => writeFileSync(join(root, "memory", `note-${n++}.md`), `note ${n}`), 100);
    try {
      await waitUntil(() => changes.length > 0, 4000);
      expect(n).toBeLessThan(40); // handed over while the writer was still going (ceiling: 2 s)
      expect(changes[0]!.length).toBeGreaterThan(5);
    } finally {
      clearInterval(writer);
    }
  });

  it("falls back to polling when watching fails, says why, and keeps reconciling", async () => {
    const root = tempDir();
    const { w, reconciles } = watcher(root);
    await w.start();
    const err = Object.assign(new Error("ENOSPC: System limit for number of file watchers reached"), {
      code: "ENOSPC",
    });
    w.nativeWatchers[0]!.emit("error", err);
    await waitUntil(() => w.status().mode === "polling");
    expect(w.status().reason).toMatch(/file watching failed \(ENOSPC\); polling every 100 ms/);
    const before = reconciles();
    await waitUntil(() => reconciles() >= before + 2, 3000);
  });

  it("a watcher error while start-up is still walking the trees: status says polling (not watching beside a polling reason), one timer", async () => {
    const root = tempDir();
    writeFiles(root, Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`memory/d${i}/n.md`, `note ${i}`])));
    const { w } = watcher(root);
    const started = w.start();
    // The first tree's watcher exists before its walk is done: its error lands in the middle of start().
    const err = Object.assign(new Error("ENOSPC: System limit for number of file watchers reached"), {
      code: "ENOSPC",
    });
    w.nativeWatchers[0]!.emit("error", err);
    await Promise.race([
      started,
      new Promise((_, no) => setTimeout(() => no(new Error("start() never finished")), 5000)),
    ]);
    await waitUntil(() => w.status().mode === "polling");
    await new Promise((r) => setTimeout(r, 50));
    expect(w.status()).toMatchObject({
      mode: "polling",
      reason: expect.stringMatching(/file watching failed \(ENOSPC\)/),
    });
    expect(w.timerCount).toBe(1);
  });

  it("a second watcher error while the first falls back starts no second polling timer", async () => {
    const root = tempDir();
    const { w } = watcher(root);
    await w.start();
    const err = Object.assign(new Error("EMFILE: too many open files"), { code: "EMFILE" });
    // Both in the window where the first fallback awaits the watchers' closes.
    const native = w.nativeWatchers[0]!;
    native.emit("error", err);
    native.emit("error", err);
    await waitUntil(() => w.status().mode === "polling");
    await new Promise((r) => setTimeout(r, 50));
    expect(w.timerCount).toBe(1);
  });

  it("mode poll: no native watching, periodic reconcile", async () => {
    const root = tempDir();
    const { w, reconciles } = watcher(root, { mode: "poll" });
    await w.start();
    expect(w.status()).toMatchObject({ mode: "polling" });
    expect(w.nativeWatchers).toHaveLength(0);
    await waitUntil(() => reconciles() >= 2, 3000);
    writeFileSync(join(root, "MEMORY.md"), "x");
  });
});

describe("directory watcher", () => {
  it("uses one watch per directory however many files, follows new and removed subdirectories", async () => {
    const root = tempDir();
    writeFiles(root, Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`memory/notes/n${i}.md`, `note ${i}`])));
    const { w, changes, reconciles } = watcher(root);
    await w.start();
    // root, memory/, memory/notes/: three watches for 300 files.
    expect(w.nativeWatchers[0]!.size).toBe(3);
    writeFiles(root, { "memory/projects/alpha/plan.md": "new dir, new file" });
    await waitUntil(() => changes.flat().includes("memory/projects/alpha/plan.md"), 5000);
    writeFiles(root, { "memory/projects/alpha/later.md": "written after the directory was picked up" });
    await waitUntil(() => changes.flat().includes("memory/projects/alpha/later.md"), 5000);
    expect(w.nativeWatchers[0]!.size).toBe(5);
    const before = reconciles();
    rmSync(join(root, "memory/projects"), { recursive: true });
    await waitUntil(() => reconciles() > before, 5000); // a removed directory asks for a reconcile
    await waitUntil(() => w.nativeWatchers[0]!.size === 3, 5000);
  });
});
