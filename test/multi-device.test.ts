import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { daemonsPerTest, startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { CONFLICT_MARKERS, bareRemoteAndTwoClones, commitPullPush, gitOk, resolveKeepingBoth } from "./helpers/git.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

/**
 * Memory on several machines, with the real system git: a bare remote, two clones ("desktop" and
 * "laptop") and one real daemon per clone (two data dirs, two sockets) on this machine.
 */
const { track } = daemonsPerTest();

async function daemonFor(root: string, home: string, extra: Record<string, unknown> = {}): Promise<TestDaemon> {
  const d = track(
    await startDaemon({
      home,
      config: { workspaces: [{ path: root, ...extra }], daemon: { debounceMs: 50, settleMs: 20 } },
    }),
  );
  await waitUntil(async () => (await d.call("cortex.status", {})).workspaces.every((w) => w.lastSync !== null), 30_000);
  return d;
}

async function finds(d: TestDaemon, query: string, path: string): Promise<boolean> {
  const r = await d.call("memory.search", { query, limit: 20 });
  return r.results.some((h) => h.path === path && h.snippet.includes(query));
}

describe("memory on two machines synced by git", () => {
  it("same-day saves on both clones merge without a conflict after `cortexd sync init`, and both indexes hold both", async () => {
    const { desktop, laptop } = bareRemoteAndTwoClones();
    const init = runCli(["sync", "init", "--json", "-w", desktop.root], { HOME: desktop.home });
    expect(init.code, init.stderr).toBe(0);
    const out = JSON.parse(init.stdout) as { gitattributes: string; changed: boolean; git: boolean };
    expect(out).toMatchObject({ changed: true, git: true });
    expect(
      gitOk(
        desktop.root,
        desktop.home,
        "check-attr",
        "merge",
        "--",
        "memory/2026-12-01.md",
        "MEMORY.md",
        "sessions/a/b.jsonl",
      ),
    ).toBe("memory/2026-12-01.md: merge: union\nMEMORY.md: merge: unspecified\nsessions/a/b.jsonl: merge: union\n");
    // Idempotent: a second run changes nothing.
    const again = JSON.parse(runCli(["sync", "init", "--json", "-w", desktop.root], { HOME: desktop.home }).stdout) as {
      changed: boolean;
    };
    expect(again.changed).toBe(false);
    commitPullPush(desktop, "cortexd sync init");
    expect(commitPullPush(laptop, "nothing yet").pull.code).toBe(0);

    const a = await daemonFor(desktop.root, desktop.home);
    const b = await daemonFor(laptop.root, laptop.home);
    const sa = await a.call("memory.save", { text: "The staging database moved to db2.internal" });
    const sb = await b.call("memory.save", { text: "Rotate the deploy key every Monday" });
    expect(sa.path).toBe(sb.path); // the same day's log on both machines
    const day = sa.path;

    commitPullPush(desktop, "desktop memory");
    const pulled = commitPullPush(laptop, "laptop memory");
    expect(pulled.pull.code, pulled.pull.out).toBe(0);
    expect(pulled.pull.out).not.toMatch(/CONFLICT/);
    expect(commitPullPush(desktop, "sync").pull.code).toBe(0);

    const fa = readFileSync(join(desktop.root, day), "utf8");
    const fb = readFileSync(join(laptop.root, day), "utf8");
    expect(fa).toBe(fb);
    expect(fa).toContain("staging database moved to db2.internal");
    expect(fa).toContain("deploy key every Monday");
    expect(fa).not.toMatch(CONFLICT_MARKERS);
    for (const d of [a, b]) {
      await waitUntil(
        async () => (await finds(d, "staging database moved", day)) && (await finds(d, "deploy key every Monday", day)),
        15_000,
      );
      const ws = (await d.call("cortex.status", {})).workspaces[0]!;
      expect(ws.files).toBe(2); // MEMORY.md and the day's log
      expect(ws.conflicts).toBeUndefined();
    }
  });

  it("a conflict (union merge off) is reported with the fix, indexed without its markers, and a save goes to a sidecar", async () => {
    const { desktop, laptop } = bareRemoteAndTwoClones();
    const a = await daemonFor(desktop.root, desktop.home);
    const b = await daemonFor(laptop.root, laptop.home);
    const sa = await a.call("memory.save", { text: "The staging database moved to db2.internal" });
    await b.call("memory.save", { text: "Rotate the deploy key every Monday" });
    const day = sa.path;
    commitPullPush(desktop, "desktop memory");
    const pulled = commitPullPush(laptop, "laptop memory");
    expect(pulled.pull.out).toMatch(/CONFLICT \([a-z/]+\): Merge conflict in memory\//);
    const conflicted = readFileSync(join(laptop.root, day), "utf8");
    expect(conflicted).toMatch(CONFLICT_MARKERS);

    await waitUntil(
      async () => (await b.call("cortex.status", {})).workspaces[0]!.conflicts?.files.includes(day) ?? false,
      15_000,
    );
    const whole = await b.call("cortex.status", {});
    const st = whole.workspaces[0]!;
    expect(st.conflicts!.fix).toMatch(/git add/);
    // An unresolved merge is something to fix: the daemon is degraded until it is resolved.
    expect(whole.healthy).toBe(false);
    const human = runCli(["status"], b.env);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain("DEGRADED");
    expect(human.stdout).toContain(`GIT CONFLICT in ${day}`);
    expect(human.stdout).toMatch(/fix: resolve the git merge in memory\//);
    // Both sides are searchable, once each; the markers are not memory.
    await waitUntil(
      async () => (await finds(b, "staging database moved", day)) && (await finds(b, "deploy key every Monday", day)),
      15_000,
    );
    const all = await b.call("memory.search", { query: "HEAD staging database deploy key", limit: 50 });
    for (const h of all.results) expect(h.snippet).not.toMatch(/<{7}|>{7}|={7}/);
    const got = await b.call("memory.recall", { query: "staging database deploy key" });
    expect(got.context.match(/staging database moved/g)?.length ?? 0).toBe(1);
    expect(got.context).not.toMatch(/<{7}|>{7}/);

    // No save lands inside the conflicted file: it goes to a clearly named sidecar, and the reply says so.
    const saved = await b.call("memory.save", { text: "The release freeze starts on the 15th" });
    expect(readFileSync(join(laptop.root, day), "utf8")).toBe(conflicted);
    expect(saved.path).not.toBe(day);
    expect(saved.path).toMatch(/conflict/);
    expect(saved.conflict?.file).toBe(day);
    expect(saved.conflict?.fix).toMatch(/git add/);
    expect(readFileSync(join(laptop.root, saved.path), "utf8")).toContain("release freeze starts on the 15th");
    await waitUntil(() => finds(b, "release freeze starts", saved.path), 15_000);

    // Resolved by hand (keep both sides): the flag goes, saves go to the day's log again.
    resolveKeepingBoth(laptop, day, conflicted);
    await waitUntil(async () => (await b.call("cortex.status", {})).workspaces[0]!.conflicts === undefined, 15_000);
    expect((await b.call("cortex.status", {})).healthy).toBe(true);
    expect((await b.call("memory.save", { text: "Tickets go to the infra board" })).path).toBe(day);
  });
});

describe("conflict copies of file-sync tools", () => {
  it("Syncthing, Dropbox and Finder copies are recognised in status and their duplicate lines are shown once in recall", async () => {
    const root = tempDir("cortexd-copies-");
    const original = "# 2026-11-30\n\n- The VPN gateway moved to gw2.example.net\n- Standup is at 9:30 in room Ada\n";
    writeFiles(root, {
      "MEMORY.md": "# Memory\n\n- The staging database is pg-staging-3\n",
      "MEMORY 2.md": "# Memory\n\n- The staging database is pg-staging-3\n- The staging database backs up at 02:00\n",
      "USER.md": "- Prefers short answers\n",
      "USER.sync-conflict-20261130-101500-ABCDEFG.md": "- Prefers short answers\n- Works from Lisbon\n",
      "memory/2026-11-30.md": original,
      "memory/2026-11-30.sync-conflict-20261130-101500-ABCDEFG.md": `${original}- The VPN gateway password rotates monthly\n`,
      "memory/2026-11-29 (conflicted copy 2026-11-29).md": "# 2026-11-29\n\n- Lunch order goes out at noon\n",
      "memory/2026-11-29.md": "# 2026-11-29\n\n- Lunch order goes out at 11:45\n",
      "memory/notes 2.md": "- a Finder duplicate\n",
      "memory/notes.md": "- the original\n",
    });
    const home = tempDir("cortexd-home-");
    const d = await daemonFor(root, home);
    const st = (await d.call("cortex.status", {})).workspaces[0]!;
    expect(st.conflicts?.copies).toEqual([
      // Copies of the curated files in the root are indexed and listed too.
      { path: "MEMORY 2.md", of: "MEMORY.md" },
      { path: "USER.sync-conflict-20261130-101500-ABCDEFG.md", of: "USER.md" },
      { path: "memory/2026-11-29 (conflicted copy 2026-11-29).md", of: "memory/2026-11-29.md" },
      { path: "memory/2026-11-30.sync-conflict-20261130-101500-ABCDEFG.md", of: "memory/2026-11-30.md" },
      { path: "memory/notes 2.md", of: "memory/notes.md" },
    ]);
    expect(st.conflicts?.fix).toMatch(/merge/i);
    // Conflict copies are listed, but the daemon is fine: nothing stops syncing or indexing.
    expect((await d.call("cortex.status", {})).healthy).toBe(true);
    const got = await d.call("memory.recall", { query: "VPN gateway" });
    expect(got.context.match(/gw2\.example\.net/g)?.length).toBe(1);
    expect(got.context).toContain("rotates monthly"); // the copy's own line is kept
    const staging = await d.call("memory.recall", { query: "When does the staging database pg-staging-3 back up?" });
    expect(staging.context).toContain("backs up at 02:00"); // found only in the copy of MEMORY.md
    expect(staging.context.match(/pg-staging-3/g)?.length).toBe(1);
    expect((await d.call("memory.search", { query: "Lisbon" })).results[0]?.path).toBe(
      "USER.sync-conflict-20261130-101500-ABCDEFG.md",
    );
    // A copy that appears while the daemon runs is picked up by the watcher.
    writeFiles(root, { "MEMORY (Ann's conflicted copy 2026-12-01).md": "- The office wifi is named Heron\n" });
    await waitUntil(async () => (await d.call("memory.search", { query: "Heron wifi" })).results.length > 0, 15_000);
  });
});

describe("per-device daily logs (file sync without merge)", () => {
  it("saves go to memory/YYYY-MM-DD.<device>.md, which is still that day's daily log", async () => {
    const root = tempDir("cortexd-perdevice-");
    writeFiles(root, { "MEMORY.md": "# Memory\n" });
    const home = tempDir("cortexd-home-");
    const d = track(
      await startDaemon({
        home,
        config: {
          device: { name: "laptop" },
          workspaces: [{ path: root, sync: { perDeviceLog: true } }],
          daemon: { debounceMs: 50, settleMs: 20 },
        },
      }),
    );
    const saved = await d.call("memory.save", { text: "The printer on floor 3 needs toner" });
    expect(saved.path).toMatch(/^memory\/\d{4}-\d{2}-\d{2}\.laptop\.md$/);
    expect(existsSync(join(root, saved.path))).toBe(true);
    const hit = (await d.call("memory.search", { query: "printer toner" })).results[0]!;
    expect(hit).toMatchObject({ path: saved.path, source: "daily" });
    const started = await d.call("session.start", { session_id: "s1" });
    expect(JSON.stringify(started)).toContain("printer on floor 3");
  });
});
