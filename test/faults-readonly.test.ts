import { spawnSync } from "node:child_process";
import Database from "better-sqlite3";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { afterAll, afterEach, describe, expect, it, onTestFailed } from "vitest";
import { generateWorkspace } from "../scripts/bench/generate.js";
import { indexPath } from "../src/engine/engine.js";
import { openIndexChecked } from "../src/index/db/open-checked.js";
import { IndexStore } from "../src/index/repos/store.js";
import { defaultNamespace } from "../src/workspace/namespace.js";
import { runCli } from "./helpers/cli.js";
import { startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { tempDir } from "./helpers/workspace.js";

/**
 * A read-only data dir, for real (needs root, as in CI; skipped elsewhere):
 *  - a read-only bind mount over an existing data dir, before the daemon starts;
 *  - an ext4 filesystem (a loop device) that the kernel turns read-only while the daemon writes to
 *    it, as it does after a disk error (errors=remount-ro; triggered through ext4's own sysfs knob).
 * A filesystem cannot be remounted read-only while a file on it is open for writing (EBUSY), so
 * the second case is how a running daemon meets a read-only data dir.
 */

function sh(cmd: string, args: string[]): { ok: boolean; out: string } {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  return { ok: r.status === 0, out: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

const mounts: string[] = [];
const loops: string[] = [];
afterAll(() => {
  for (const m of mounts.splice(0).reverse()) sh("umount", ["-l", m]);
  for (const dev of loops.splice(0)) sh("losetup", ["-d", dev]);
});

/** Makes `dir` read-only in place (a read-only bind mount over itself). */
function bindReadOnly(dir: string): boolean {
  if (!sh("mount", ["--bind", dir, dir]).ok) return false;
  mounts.push(dir);
  return sh("mount", ["-o", "remount,ro,bind", dir]).ok;
}

const canBind = (() => {
  if (process.getuid?.() !== 0) return false;
  const d = tempDir("cortexd-bind-");
  const ok = bindReadOnly(d);
  if (ok) {
    let refused = false;
    try {
      writeFileSync(join(d, "x"), "x");
    } catch {
      refused = true;
    }
    sh("umount", ["-l", d]);
    mounts.pop();
    return refused;
  }
  return false;
})();

/** A fresh ext4 image mounted with errors=remount-ro; null when loop devices or ext4 are unavailable. */
function mountExt4(): { image: string; dir: string } | null {
  if (process.getuid?.() !== 0) return null;
  const base = tempDir("cortexd-ext4-");
  const image = join(base, "fs.img");
  const dir = join(base, "mnt");
  mkdirSync(dir);
  if (!sh("truncate", ["-s", "48M", image]).ok || !sh("mkfs.ext4", ["-q", "-F", image]).ok) return null;
  if (!sh("mount", ["-o", "loop,errors=remount-ro", image, dir]).ok) return null;
  mounts.push(dir);
  return { image, dir };
}

/** ext4's debugging knob: reports a filesystem error, and errors=remount-ro turns the mount read-only at once. */
function ext4ErrorKnob(dir: string): string | null {
  const dev = sh("findmnt", ["-no", "SOURCE", dir]).out.trim();
  const knob = `/sys/fs/ext4/${basename(dev)}/trigger_fs_error`;
  return dev && existsSync(knob) ? knob : null;
}

const ext4 = (() => {
  const m = mountExt4();
  if (!m) return false;
  const ok = ext4ErrorKnob(m.dir) !== null;
  sh("umount", ["-l", m.dir]);
  mounts.pop();
  return ok;
})();

const running: TestDaemon[] = [];
afterEach(async () => {
  for (const d of running.splice(0)) await d.stop();
});

const QUERY = "deploy release pipeline";
const BIG = Array.from({ length: 40 }, (_, i) => `- zephyrquill entry ${i} about the lighthouse ledger.`).join("\n");

/** Every file in a directory tree with its bytes, to show that nothing was written. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const p = join(dir, name);
    if (statSync(p).isFile()) out.set(name, readFileSync(p).toString("base64"));
  }
  return out;
}

/** A sound index (keyword-only) of a small workspace, built by `cortexd index`; its data dir. */
function builtIndex(): { root: string; dataDir: string; db: string } {
  const root = join(tempDir(), "ws");
  generateWorkspace(root, 12, 3);
  const dataDir = join(tempDir("cortexd-ro-"), "data");
  const r = runCli(["index", "--workspace", root, "--data-dir", dataDir, "--json"], {
    CORTEXD_EMBEDDING_PROVIDER: "none",
    XDG_CONFIG_HOME: tempDir(),
  });
  expect(r.code, r.stderr).toBe(0);
  return { root, dataDir, db: indexPath(dataDir, defaultNamespace(root)) };
}

const fileCount = (db: Database.Database) => (db.prepare(`SELECT count(*) AS n FROM files`).get() as { n: number }).n;

describe.skipIf(!canBind)("opening an index in a read-only directory", () => {
  const cases: Record<string, (db: string) => void> = {
    // cortexd closes an index in rollback mode, which is readable in place.
    "closed cleanly": () => {},
    // An older cortexd left it in WAL mode without a -wal file: searched from a copy in memory.
    "left in WAL mode without its -wal file": (db) => {
      const c = new Database(db);
      c.pragma("journal_mode = WAL");
      c.close();
    },
    // A crash leaves the -wal (with committed rows not yet in the main file) and the -shm: readable in place.
    "left by a crash with its -wal and -shm": (db) => {
      const script =
        `const D=require("better-sqlite3");const c=new D(${JSON.stringify(db)});c.pragma("journal_mode = WAL");` +
        `c.prepare("INSERT INTO meta (key, value) VALUES ('crash-marker', 'x')").run();process.kill(process.pid,"SIGKILL")`;
      spawnSync(process.execPath, ["-e", script], { cwd: process.cwd() });
      expect(existsSync(`${db}-wal`) && existsSync(`${db}-shm`)).toBe(true);
    },
  };
  for (const [name, prepare] of Object.entries(cases)) {
    it(`${name}: opened read-only, readable, writes refused, not a byte changed`, () => {
      const { dataDir, db } = builtIndex();
      const sound = new Database(db, { readonly: true });
      const files = fileCount(sound);
      sound.close();
      prepare(db);
      const before = snapshot(dataDir);
      expect(bindReadOnly(dataDir)).toBe(true);
      const { opened, readOnly, recovery } = openIndexChecked(db, { quickCheck: true });
      try {
        expect(recovery).toBeUndefined();
        expect(readOnly).toMatchObject({ dir: dirname(db), reason: expect.stringMatching(/EROFS/) });
        expect(readOnly!.unreadable).toBeUndefined();
        expect(readOnly!.copy).toBe(name.includes("without its -wal") ? true : undefined);
        expect(fileCount(opened.db)).toBe(files);
        if (name.includes("crash"))
          expect(opened.db.prepare(`SELECT value FROM meta WHERE key = 'crash-marker'`).get()).toEqual({ value: "x" });
        expect(() => new IndexStore(opened, "t").setMeta("k", "v")).toThrow(/readonly/);
      } finally {
        opened.db.close();
      }
      expect(snapshot(dataDir)).toEqual(before);
    });
  }
});

describe.skipIf(!canBind)("the CLI without the daemon on a read-only data dir", () => {
  it("`cortexd search` answers from the index; `cortexd index` refuses with the reason", () => {
    const { root, dataDir } = builtIndex();
    expect(bindReadOnly(dataDir)).toBe(true);
    const env = {
      CORTEXD_EMBEDDING_PROVIDER: "none",
      XDG_CONFIG_HOME: tempDir(),
      CORTEXD_SOCKET: join(tempDir(), "none.sock"),
    };
    const search = runCli(["search", QUERY, "--workspace", root, "--data-dir", dataDir, "--json"], env);
    expect(search.code, search.stderr).toBe(0);
    expect((JSON.parse(search.stdout) as { results: unknown[] }).results.length).toBeGreaterThan(0);
    const index = runCli(["index", "--workspace", root, "--data-dir", dataDir], env);
    expect(index.code).not.toBe(0);
    expect(index.stderr).toMatch(/cannot index .*: read-only data dir: .* — make it writable again/);
  });
});

describe.skipIf(!canBind)("read-only data dir at start (a read-only bind mount)", () => {
  it("opens the index read-only: reads answer, writes wait with a clear error, indexing resumes once the dir is writable again", async () => {
    const root = join(tempDir(), "ws");
    generateWorkspace(root, 30, 5);
    const dataDir = join(tempDir("cortexd-ro-"), "data");
    const config = { workspaces: [{ path: root }], daemon: { debounceMs: 50, settleMs: 20 } };
    const first = await startDaemon({ config, env: { CORTEXD_DATA_DIR: dataDir } });
    running.push(first);
    await first.call("index.sync", {});
    const before = await first.call("memory.search", { query: QUERY });
    expect(before.results.length).toBeGreaterThan(0);
    await first.stop();
    running.pop();
    const index = join(dataDir, "indexes", `${defaultNamespace(root)}.sqlite`);
    const indexBytes = readFileSync(index);

    expect(bindReadOnly(dataDir)).toBe(true);
    const d = await startDaemon({ home: first.home, env: { CORTEXD_DATA_DIR: dataDir } });
    running.push(d);
    await waitUntil(async () => (await d.call("cortex.status", {})).workspaces[0]!.lastError !== null, 10_000);
    const st = await d.call("cortex.status", {});
    const ws = st.workspaces[0]!;
    expect(st.healthy).toBe(false);
    expect(ws.lastError).toContain(`read-only data dir: ${join(dataDir, "indexes")} — make it writable again`);
    expect(ws.lastError).toMatch(/EROFS/);
    expect(ws.readOnly).toMatchObject({ dir: join(dataDir, "indexes") });
    expect(ws.readOnly!.unreadable).toBeUndefined();
    expect(ws.files).toBeGreaterThan(0);
    expect(d.stderr()).toMatch(/read-only data dir: .* — make it writable again/);

    // Reads answer from the index as it is.
    expect((await d.call("memory.search", { query: QUERY })).results.length).toBe(before.results.length);
    expect((await d.call("memory.recall", { query: QUERY })).memory_count).toBeGreaterThan(0);
    const hit = before.results[0]!;
    expect((await d.call("memory.get", { path: hit.path, from: hit.startLine, lines: 1 })).text.length).toBeGreaterThan(
      0,
    );

    // Writes: indexing refuses with the reason; a save still lands in the (writable) workspace.
    writeFileSync(join(root, "memory", "2026-11-28.md"), `# 2026-11-28\n\n${BIG}\n`);
    await expect(d.call("index.sync", {})).rejects.toThrow(/read-only data dir: .* — make it writable again/);
    const saved = await d.call("memory.save", { text: "The quillwort audit moved to Thursday." });
    expect(saved).toMatchObject({ stored: true, indexed: false });
    expect(readFileSync(join(root, saved.path), "utf8")).toContain("quillwort audit");
    expect((await d.call("memory.search", { query: "zephyrquill" })).results.length).toBe(0);
    // Session hooks keep working (their state stays in memory until it can be written).
    expect((await d.call("session.start", { session_id: "ro-1" })).context).toContain("quillwort audit");
    expect(await d.call("session.touch", { session_id: "ro-1", prompt: "Plan the lighthouse ledger review" })).toEqual({
      ok: true,
    });
    expect(readFileSync(index).equals(indexBytes)).toBe(true);

    // The admin makes it writable again: no restart, no file event needed.
    expect(sh("mount", ["-o", "remount,rw,bind", dataDir]).ok).toBe(true);
    await waitUntil(
      async () => (await d.call("memory.search", { query: "zephyrquill" })).results.length > 0,
      70_000,
      200,
    );
    await waitUntil(async () => (await d.call("memory.search", { query: "quillwort" })).results.length > 0, 10_000);
    const after = await d.call("cortex.status", {});
    expect(after.workspaces[0]!.lastError).toBeNull();
    expect(after.workspaces[0]!.readOnly).toBeUndefined();
    expect(d.stderr()).toMatch(/data dir is writable again/);
  }, 120_000);

  it("an index never opened before in a read-only data dir: the daemon still starts and says why searches find nothing", async () => {
    const root = join(tempDir(), "ws");
    generateWorkspace(root, 5, 3);
    const dataDir = join(tempDir("cortexd-ro-"), "data");
    mkdirSync(dataDir, { mode: 0o700 });
    expect(bindReadOnly(dataDir)).toBe(true);
    const d = await startDaemon({ config: { workspaces: [{ path: root }] }, env: { CORTEXD_DATA_DIR: dataDir } });
    running.push(d);
    const ws = (await d.call("cortex.status", {})).workspaces[0]!;
    expect(ws.readOnly?.unreadable).toMatch(/there is no index at .* yet/);
    expect((await d.call("memory.search", { query: QUERY })).results).toEqual([]);
    expect(statSync(dataDir).isDirectory()).toBe(true);
    expect(existsSync(join(dataDir, "indexes"))).toBe(false);
  }, 30_000);
});

describe.skipIf(!ext4)(
  "data dir turned read-only by the kernel while the daemon runs (ext4, errors=remount-ro)",
  () => {
    it("status says so, reads keep answering, saves land in the files; after the filesystem is repaired and mounted again, indexing catches up", async () => {
      const fs = mountExt4()!;
      const root = join(tempDir(), "ws");
      generateWorkspace(root, 30, 5);
      const dataDir = join(fs.dir, "data");
      const d = await startDaemon({
        config: { workspaces: [{ path: root }], daemon: { debounceMs: 50, settleMs: 20 } },
        env: { CORTEXD_DATA_DIR: dataDir },
      });
      running.push(d);
      onTestFailed(() => console.log(`daemon log:\n${d.stderr()}`));
      await d.call("index.sync", {});
      const before = await d.call("memory.search", { query: QUERY });
      expect(before.results.length).toBeGreaterThan(0);

      writeFileSync(ext4ErrorKnob(fs.dir)!, "1");
      expect(sh("findmnt", ["-no", "OPTIONS", fs.dir]).out).toMatch(/emergency_ro|(^|,)ro(,|$)/);
      writeFileSync(join(root, "memory", "2026-11-28.md"), `# 2026-11-28\n\n${BIG}\n`);
      await waitUntil(
        async () => /^read-only data dir/.test((await d.call("cortex.status", {})).workspaces[0]!.lastError ?? ""),
        15_000,
      );
      const st = await d.call("cortex.status", {});
      expect(st.healthy).toBe(false);
      expect(st.workspaces[0]!.lastError).toContain(`read-only data dir: ${dataDir}`);
      expect(st.workspaces[0]!.readOnly).toBeDefined();
      expect((await d.call("memory.search", { query: QUERY })).results.length).toBe(before.results.length);
      expect((await d.call("memory.recall", { query: QUERY })).memory_count).toBeGreaterThan(0);
      const saved = await d.call("memory.save", { text: "The quillwort audit moved to Thursday." });
      expect(saved).toMatchObject({ stored: true, indexed: false });
      expect(readFileSync(join(root, saved.path), "utf8")).toContain("quillwort audit");
      await expect(d.call("index.sync", {})).rejects.toThrow(/read-only data dir/);

      // What an admin does: unmount, fsck, mount again. The daemon still holds files of the old mount
      // (hence a lazy unmount), and so does the old loop device: the image goes on a new one.
      expect(sh("umount", ["-l", fs.dir]).ok).toBe(true);
      sh("e2fsck", ["-fy", fs.image]); // exit code 1: errors corrected
      const dev = sh("losetup", ["-f", "--show", fs.image]).out.trim();
      expect(dev).toMatch(/^\/dev\/loop/);
      loops.push(dev);
      expect(sh("mount", ["-o", "errors=remount-ro", dev, fs.dir]).ok).toBe(true);
      // No event needed: the failed sync's retry (backoff up to 60 s) reopens the index read-write.
      await waitUntil(
        async () => (await d.call("memory.search", { query: "zephyrquill" })).results.length > 0,
        70_000,
        200,
      );
      await waitUntil(async () => (await d.call("memory.search", { query: "quillwort" })).results.length > 0, 10_000);
      const after = await d.call("cortex.status", {});
      expect(after.workspaces[0]!.lastError).toBeNull();
      expect((await d.call("memory.search", { query: QUERY })).results.length).toBe(before.results.length);
      expect(d.stderr()).toMatch(/data dir is writable again/);
      expect(d.child.exitCode).toBeNull();
    }, 120_000);
  },
);
