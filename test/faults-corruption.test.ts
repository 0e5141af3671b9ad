import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { generateWorkspace } from "../scripts/bench/generate.js";
import { indexPath } from "../src/engine/engine.js";
import { openDatabase } from "../src/index/db/db.js";
import { MIGRATIONS } from "../src/index/db/migrations.js";
import { openIndexChecked } from "../src/index/db/open-checked.js";
import { defaultNamespace } from "../src/workspace/namespace.js";
import { runCli } from "./helpers/cli.js";
import { startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { dumpIndex, tempDir } from "./helpers/workspace.js";

const running: TestDaemon[] = [];
afterEach(async () => {
  for (const d of running.splice(0)) await d.stop();
});

const KW = { CORTEXD_EMBEDDING_PROVIDER: "none" };

/** A workspace and a sound index of it (keyword-only) built by `cortexd index`. */
function builtIndex(files = 60): { root: string; dataDir: string; db: string } {
  const root = join(tempDir(), "ws");
  generateWorkspace(root, files, 11);
  const dataDir = tempDir();
  const r = runCli(["index", "--workspace", root, "--data-dir", dataDir, "--json"], {
    ...KW,
    XDG_CONFIG_HOME: tempDir(),
  });
  expect(r.code, r.stderr).toBe(0);
  return { root, dataDir, db: indexPath(dataDir, defaultNamespace(root)) };
}

/** A daemon home holding a copy of the built index where the daemon looks for it. */
function homeWithIndex(root: string, db: string): { home: string; target: string } {
  const home = tempDir("cortexd-home-");
  const target = indexPath(join(home, ".local/share/cortexd"), defaultNamespace(root));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(db, target);
  return { home, target };
}

/** The rebuilt index holds what a clean build of the same files holds. */
function expectRebuiltAsClean(target: string, db: string): void {
  const rebuilt = openDatabase(target);
  const clean = openDatabase(db);
  expect(dumpIndex(rebuilt.db)).toEqual(dumpIndex(clean.db));
  rebuilt.db.close();
  clean.db.close();
}

function overwrite(path: string, at: number, bytes: Buffer): void {
  const fd = openSync(path, "r+");
  try {
    writeSync(fd, bytes, 0, bytes.length, at);
  } finally {
    closeSync(fd);
  }
}

const DAMAGE: Record<string, (db: string) => void> = {
  "truncated to half": (db) => truncateSync(db, Math.floor(statSync(db).size / 2)),
  "garbage header": (db) => overwrite(db, 0, Buffer.alloc(100, 0x5a)),
  "a garbage page in the middle": (db) =>
    overwrite(db, 16384 * Math.floor(statSync(db).size / 16384 / 2), Buffer.alloc(16384, 0xa5)),
  "random bytes only": (db) =>
    writeFileSync(db, Buffer.from(Array.from({ length: 50_000 }, (_, i) => (i * 7919) % 251))),
};

describe("a damaged index is detected, moved aside and rebuilt", () => {
  for (const [name, damage] of Object.entries(DAMAGE)) {
    it(`${name}: detected at open, the damaged file kept as <db>.corrupt-<time>, a fresh index in its place`, () => {
      const { db } = builtIndex(30);
      damage(db);
      const damaged = readFileSync(db);
      const { opened, recovery } = openIndexChecked(db, {
        quickCheck: true,
        clock: () => Date.parse("2026-11-29T10:00:00Z"),
      });
      try {
        expect(recovery, "damage not detected").toBeDefined();
        expect(recovery!.movedTo).toBe(`${db}.corrupt-2026-11-29T10-00-00-000Z`);
        expect(recovery!.reason).toMatch(/SQLITE_CORRUPT|SQLITE_NOTADB|quick_check/);
        expect(readFileSync(recovery!.movedTo).equals(damaged)).toBe(true); // kept byte for byte
        expect(opened.db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
        expect((opened.db.prepare(`SELECT count(*) AS n FROM files`).get() as { n: number }).n).toBe(0);
      } finally {
        opened.db.close();
      }
    });
  }

  it("a sound index is left alone; errors that are not damage (a newer schema) are thrown, the file untouched", () => {
    const { db } = builtIndex(10);
    const a = openIndexChecked(db, { quickCheck: true });
    expect(a.recovery).toBeUndefined();
    a.opened.db.pragma(`user_version = ${MIGRATIONS.length + 5}`);
    a.opened.db.close();
    expect(() => openIndexChecked(db, { quickCheck: true })).toThrow(/newer than this cortexd supports/);
    expect(readdirSync(dirname(db)).filter((f) => f.includes("corrupt"))).toEqual([]);
  });

  it("the daemon finds a truncated index at start, rebuilds it to equal a clean build, and says so in status and logs", async () => {
    const { root, db } = builtIndex(60);
    const { home, target } = homeWithIndex(root, db);
    truncateSync(target, Math.floor(statSync(target).size * 0.6));

    const d = await startDaemon({ home, config: { workspaces: [{ path: root }] } });
    running.push(d);
    await d.call("index.sync", {});
    const st = await d.call("cortex.status", {});
    const ws = st.workspaces[0]!;
    expect(ws.recovered?.reason).toMatch(/SQLITE_CORRUPT|quick_check/);
    expect(ws.recovered?.movedTo).toMatch(/\.sqlite\.corrupt-\d{4}-\d\d-\d\dT/);
    expect(existsSync(ws.recovered!.movedTo)).toBe(true);
    expect(ws.files).toBe(60);
    expect((await d.call("memory.search", { query: "deploy release" })).results.length).toBeGreaterThan(0);

    const human = runCli(["status"], d.env);
    expect(human.stdout).toMatch(/INDEX REBUILT: it was damaged at start \(.*\); moved to .*\.corrupt-/);
    await waitUntil(() => /index is damaged: moved aside, rebuilding it from the memory files/.test(d.stderr()));
    await d.stop();
    // `db` itself was built cleanly by `cortexd index` before any damage.
    expectRebuiltAsClean(target, db);
  }, 30_000);

  it("an index over daemon.checkBeforeListeningMb is checked once the daemon answers; damage found so is moved aside and rebuilt", async () => {
    const { root, db } = builtIndex(60);
    const { home, target } = homeWithIndex(root, db);
    // A page SQLite opens past; quick_check finds it (or the startup sync, if it reads that page).
    DAMAGE["a garbage page in the middle"]!(target);

    const d = await startDaemon({
      home,
      config: { workspaces: [{ path: root }], daemon: { checkBeforeListeningMb: 0 } },
    });
    running.push(d);
    // Answering, then the damage is found (by the check, or by the startup sync reading that page
    // first: both recover the same way) and the index is rebuilt.
    await waitUntil(async () => !!(await d.call("cortex.status", {})).workspaces[0]!.recovered, 20_000);
    const ws = (await d.call("cortex.status", {})).workspaces[0]!;
    expect(ws.recovered!.reason).toMatch(/quick_check|SQLITE_CORRUPT/);
    expect(existsSync(ws.recovered!.movedTo)).toBe(true);
    await waitUntil(async () => (await d.call("cortex.status", {})).workspaces[0]!.files === 60, 20_000);
    expect((await d.call("memory.search", { query: "deploy release" })).results.length).toBeGreaterThan(0);
    await d.stop();
    expectRebuiltAsClean(target, db);
  }, 60_000);

  it("a sound index over the limit is checked after start and left alone", async () => {
    const { root, db } = builtIndex(20);
    const { home, target } = homeWithIndex(root, db);
    const d = await startDaemon({
      home,
      config: { workspaces: [{ path: root }], daemon: { checkBeforeListeningMb: 0 } },
      env: { CORTEXD_LOG_LEVEL: "info" },
    });
    running.push(d);
    await waitUntil(() => /index checked: sound/.test(d.stderr()), 20_000);
    expect((await d.call("cortex.status", {})).workspaces[0]!.recovered).toBeUndefined();
    expect(readdirSync(dirname(target)).filter((f) => f.includes(".corrupt-"))).toEqual([]);
  }, 60_000);

  it("`cortexd index` rebuilds a damaged index and reports where the damaged one went", () => {
    const { root, dataDir, db } = builtIndex(20);
    overwrite(db, 0, Buffer.alloc(100, 0x5a));
    const r = runCli(["index", "--workspace", root, "--data-dir", dataDir, "--json"], KW);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.recovered[0].reason).toMatch(/SQLITE_NOTADB/);
    expect(out.reports[0].added).toBe(20);
    // Offline status of a damaged index says so instead of crashing.
    overwrite(db, 0, Buffer.alloc(100, 0x5a));
    const st = runCli(["status", "--workspace", root, "--data-dir", dataDir], { ...KW, XDG_RUNTIME_DIR: tempDir() });
    expect(st.stdout).toMatch(/index unreadable: .*not a database/);
  });
});
