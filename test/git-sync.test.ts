import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { daemonsPerTest, startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import {
  CONFLICT_MARKERS,
  bareRemoteAndTwoClones,
  commitPullPush,
  gitOk,
  readSynced,
  resolveKeepingBoth,
} from "./helpers/git.js";

/**
 * The scheduled git sync (workspace config `sync.git`, a cron; here every second) against a bare
 * remote with the real system git: two clones, one daemon each.
 */
const { track } = daemonsPerTest();

async function syncingDaemon(
  c: { root: string; home: string },
  device: string,
  schedule = "* * * * * *",
): Promise<TestDaemon> {
  const d = track(
    await startDaemon({
      home: c.home, // its .gitconfig holds the identity the commits use
      config: {
        device: { name: device },
        workspaces: [{ path: c.root, sync: { git: schedule } }],
        daemon: { debounceMs: 50, settleMs: 20 },
      },
    }),
  );
  await waitUntil(async () => (await d.call("cortex.status", {})).workspaces.every((w) => w.lastSync !== null), 30_000);
  return d;
}

const gitState = async (d: TestDaemon) => (await d.call("cortex.status", {})).workspaces[0]!.gitSync;

describe("cortexd sync now", () => {
  it("runs the git sync at once instead of at the next scheduled time; a workspace without git sync is named", async () => {
    const { remote, desktop } = bareRemoteAndTwoClones();
    const a = await syncingDaemon(desktop, "desktop", "0 0 1 1 *"); // next run: next new year
    await a.call("memory.save", { text: "The build cache lives on cache3.internal" });
    const r = runCli(["sync", "now"], a.env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/: ok: /);
    expect(gitOk(remote, desktop.home, "log", "-1", "--format=%s", "main")).toMatch(/memory saved on desktop/);
    const json = JSON.parse(runCli(["sync", "now", "--json"], a.env).stdout) as {
      runs: { gitSync: { state: string } }[];
    };
    expect(json.runs).toHaveLength(1);
    expect(json.runs[0]!.gitSync.state).toBe("ok");

    const plain = track(await startDaemon({ config: { workspaces: [{ path: desktop.root }] } }));
    const off = runCli(["sync", "now"], plain.env);
    expect(off.code).toBe(1);
    expect(off.stderr).toMatch(/no git sync: give it "sync": \{ "git": /);
  });
});

describe("scheduled git sync", () => {
  it("commits each device's saves, pulls with a merge and pushes: both clones converge, both indexes find both", async () => {
    const { remote, desktop, laptop } = bareRemoteAndTwoClones();
    expect(runCli(["sync", "init", desktop.root], { HOME: desktop.home }).code).toBe(0);
    commitPullPush(desktop, "cortexd sync init");
    commitPullPush(laptop, "pull the merge rules");
    const a = await syncingDaemon(desktop, "desktop");
    const b = await syncingDaemon(laptop, "laptop");
    expect((await gitState(a))?.schedule).toBe("* * * * * *");
    const day = (await a.call("memory.save", { text: "The staging database moved to db2.internal" })).path;
    await b.call("memory.save", { text: "Rotate the deploy key every Monday" });
    const both = (root: string) => {
      const t = readSynced(join(root, day));
      return t.includes("db2.internal") && t.includes("deploy key every Monday");
    };
    await waitUntil(() => both(desktop.root) && both(laptop.root), 30_000, 200);
    expect(readSynced(join(desktop.root, day))).not.toMatch(CONFLICT_MARKERS);
    for (const d of [a, b]) {
      await waitUntil(async () => {
        const r = await d.call("memory.search", { query: "staging database deploy key", limit: 10 });
        return (
          r.results.filter((h) => h.path === day).length > 0 &&
          (await d.call("memory.search", { query: "deploy key every Monday" })).results.some((h) => h.path === day) &&
          (await d.call("memory.search", { query: "db2.internal" })).results.some((h) => h.path === day)
        );
      }, 15_000);
    }
    const log = gitOk(remote, desktop.home, "log", "--format=%s", "main");
    expect(log).toMatch(/cortexd: memory saved on desktop \(1 file\)/);
    expect(log).toMatch(/cortexd: memory saved on laptop \(1 file\)/);
    await waitUntil(
      async () => (await gitState(a))?.state === "ok" && (await gitState(b))?.state === "ok",
      10_000,
      200,
    );
    // Only cortexd's own appends are committed: a person's unsaved edit stays in the work tree.
    writeFileSync(join(desktop.root, "MEMORY.md"), "# Memory\n\n- The team ships on Fridays.\n- draft, not ready\n");
    await a.call("memory.save", { text: "Incident review is on Thursday" });
    await waitUntil(
      () => gitOk(remote, desktop.home, "log", "-1", "--format=%s", "main").includes("memory saved on desktop"),
      15_000,
      200,
    );
    await waitUntil(() => gitOk(remote, desktop.home, "show", "main:" + day).includes("Incident review"), 15_000, 200);
    expect(gitOk(desktop.root, desktop.home, "status", "--porcelain")).toContain(" M MEMORY.md");
    expect(gitOk(remote, desktop.home, "show", "main:MEMORY.md")).not.toContain("draft, not ready");
  });

  it("stops syncing a workspace on a merge conflict and says so in status; resumes once the merge is committed", async () => {
    const { remote, desktop, laptop } = bareRemoteAndTwoClones(); // no union merge: same-day appends conflict
    const a = await syncingDaemon(desktop, "desktop");
    const b = await syncingDaemon(laptop, "laptop");
    const day = (await a.call("memory.save", { text: "The staging database moved to db2.internal" })).path;
    await waitUntil(
      () => gitOk(remote, desktop.home, "log", "--format=%s", "main").includes("memory saved on desktop"),
      20_000,
      200,
    );
    await b.call("memory.save", { text: "Rotate the deploy key every Monday" });
    await waitUntil(async () => (await gitState(b))?.state === "stopped", 20_000, 200);
    const st = (await gitState(b))!;
    expect(st.conflicted).toEqual([day]);
    expect(st.lastResult).toMatch(/merge conflict in memory\//);
    expect(st.fix).toMatch(/git add/);
    expect((await b.call("cortex.status", {})).workspaces[0]!.conflicts?.files).toEqual([day]);
    expect((await b.call("cortex.status", {})).healthy).toBe(false); // a stopped sync is something to fix
    // Stopped: nothing is committed, pulled or pushed while the conflict waits, and no save lands in it.
    const remoteHead = gitOk(remote, desktop.home, "rev-parse", "main");
    const laptopHead = gitOk(laptop.root, laptop.home, "rev-parse", "HEAD");
    const conflicted = readFileSync(join(laptop.root, day), "utf8");
    expect(conflicted).toMatch(CONFLICT_MARKERS);
    const side = await b.call("memory.save", { text: "The release freeze starts on the 15th" });
    expect(side.conflict?.file).toBe(day);
    const runsBefore = (await gitState(b))!.lastRun;
    await waitUntil(async () => (await gitState(b))!.lastRun !== runsBefore, 10_000, 200);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await gitState(b))!.state).toBe("stopped");
    expect(gitOk(remote, desktop.home, "rev-parse", "main")).toBe(remoteHead);
    expect(gitOk(laptop.root, laptop.home, "rev-parse", "HEAD")).toBe(laptopHead);
    expect(readFileSync(join(laptop.root, day), "utf8")).toBe(conflicted);
    // A merge, never a rebase: the laptop's own commit stays HEAD, the remote's commit is what is being merged.
    expect(gitOk(laptop.root, laptop.home, "rev-parse", "MERGE_HEAD")).toBe(remoteHead);
    expect(gitOk(laptop.root, laptop.home, "log", "-1", "--format=%s", "HEAD")).toMatch(
      /cortexd: memory saved on laptop/,
    );

    // The person resolves it (keeps both sides) and commits: the next run syncs again.
    resolveKeepingBoth(laptop, day, conflicted);
    await waitUntil(async () => (await gitState(b))?.state === "ok", 20_000, 200);
    await waitUntil(
      () => gitOk(remote, desktop.home, "show", "main:" + day).includes("deploy key every Monday"),
      20_000,
      200,
    );
    await waitUntil(() => readSynced(join(desktop.root, day)).includes("deploy key every Monday"), 20_000, 200);
    expect((await gitState(a))?.state).toBe("ok");
  });
});

describe("git sync's bounds", () => {
  it("refuses a workspace inside a larger repository (a pull there would change files outside it) and one without an upstream", async () => {
    const { GitSync } = await import("../src/multi-device/git-sync.js");
    const { gitHome } = await import("./helpers/git.js");
    const { tempDir, writeFiles } = await import("./helpers/workspace.js");
    const home = gitHome("bounds");
    const repo = tempDir("cortexd-outer-");
    gitOk(repo, home, "init", "-q");
    writeFiles(repo, { "notes.txt": "not memory\n", "agent/MEMORY.md": "# Memory\n" });
    gitOk(repo, home, "add", "-A");
    gitOk(repo, home, "commit", "-q", "-m", "outer");
    let pulled = 0;
    const env = { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: "1" };
    const sync = new GitSync({ device: "t", env, onPulled: async () => void pulled++ });
    const inner = { name: "inner", root: join(repo, "agent") };
    expect(await sync.run(inner)).toMatch(/inside the larger repository/);
    expect(sync.status("inner")).toMatchObject({ state: "error", fix: expect.stringMatching(/repository of its own/) });
    const alone = { name: "alone", root: repo };
    expect(await sync.run(alone)).toMatch(/no upstream/);
    expect(sync.status("alone")!.fix).toMatch(/git -C .* push -u origin/);
    expect(pulled).toBe(0);
    expect(gitOk(repo, home, "log", "--format=%s")).toBe("outer\n");
  });
});

describe("git sync and cortexd's own writes", () => {
  it("a save waits while the sync commits and merges (a merge replaces files), then lands, and is committed next", async () => {
    const { GitSync } = await import("../src/multi-device/git-sync.js");
    const { MemoryWriter } = await import("../src/memory-files/writer.js");
    const { StateStore } = await import("../src/session/state.js");
    const { tempDir } = await import("./helpers/workspace.js");
    const { existsSync } = await import("node:fs");
    const root = tempDir("cortexd-gate-");
    const ws = { name: "gate", root };
    const sync = new GitSync({ device: "t", onPulled: async () => undefined });
    sync.register(ws, "manual");
    let release!: () => void;
    const merging = sync.around(ws, () => new Promise<void>((r) => (release = r)));
    const writer = new MemoryWriter(
      StateStore.forDataDir(tempDir("cortexd-data-")),
      () => Date.UTC(2026, 11, 1, 12),
      sync,
    );
    const saving = writer.save(ws, { text: "Written after the merge" });
    await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(join(root, "memory"))).toBe(false);
    release();
    await merging;
    const saved = await saving;
    expect(readFileSync(join(root, saved.path), "utf8")).toContain("Written after the merge");
    // A workspace without a schedule is not held back.
    const other = { name: "other", root: tempDir("cortexd-free-") };
    expect((await writer.save(other, { text: "Not synced" })).stored).toBe(true);
  });
});
