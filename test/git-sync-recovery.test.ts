import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { daemonsPerTest, startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { bareRemoteAndTwoClones, commitPullPush, git, gitOk, readSynced } from "./helpers/git.js";

/**
 * Git sync that always recovers (issue #34), with the real system git against a bare remote: a
 * teammate's attributes that re-encode memory files, a teammate's commit holding conflict-marker
 * lines, a remote whose name has a `/`. The desktop runs a daemon syncing every second; the laptop is
 * the teammate, by hand.
 */
const { track } = daemonsPerTest();

async function syncingDaemon(c: { root: string; home: string }, device: string): Promise<TestDaemon> {
  const d = track(
    await startDaemon({
      home: c.home,
      config: {
        device: { name: device },
        workspaces: [{ path: c.root, sync: { git: "* * * * * *" } }],
        daemon: { debounceMs: 50, settleMs: 20 },
      },
    }),
  );
  await waitUntil(async () => (await d.call("cortex.status", {})).workspaces.every((w) => w.lastSync !== null), 30_000);
  return d;
}

const gitState = async (d: TestDaemon) => (await d.call("cortex.status", {})).workspaces[0]!.gitSync!;

/** Waits for `cond`; a timeout says what the sync last did. */
async function until(d: TestDaemon, cond: () => Promise<boolean> | boolean): Promise<void> {
  try {
    await waitUntil(cond, 20_000);
  } catch (e) {
    throw new Error(`${String(e)}; git sync: ${JSON.stringify(await gitState(d))}`, { cause: e });
  }
}
/** The run that pushed has recorded its outcome (the remote can hold the push a moment before status does). */
const settled = async (d: TestDaemon) => (await gitState(d)).state !== "idle";
const remoteHas = (remote: string, home: string, text: string) =>
  git(remote, home, "grep", "-q", text, "main", "--", "memory").code === 0;

describe("git sync recovers from a teammate's commits", () => {
  it("a teammate's UTF-16 working-tree-encoding on *.md: cortexd's own commits ignore it, and after the revert sync converges with no manual step", async () => {
    const { remote, desktop, laptop } = bareRemoteAndTwoClones();
    writeFileSync(join(laptop.root, ".gitattributes"), "*.md working-tree-encoding=UTF-16LE-BOM\n");
    gitOk(laptop.root, laptop.home, "add", ".gitattributes");
    gitOk(laptop.root, laptop.home, "commit", "-q", "-m", "encode memory as UTF-16");
    gitOk(laptop.root, laptop.home, "push", "-q", "origin", "HEAD:main");
    const a = await syncingDaemon(desktop, "desktop");
    await until(a, async () => (await gitState(a)).lastResult?.includes("pulled") ?? false);
    await a.call("memory.save", { text: "The canary fleet runs in eu-west-3" });
    await until(a, async () => remoteHas(remote, desktop.home, "eu-west-3") && (await settled(a)));
    expect((await gitState(a)).state).toBe("ok");
    // The teammate reverts; the next saves and syncs just work, and the file in the remote is UTF-8.
    gitOk(laptop.root, laptop.home, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main");
    gitOk(laptop.root, laptop.home, "rm", "-q", ".gitattributes");
    gitOk(laptop.root, laptop.home, "commit", "-q", "-m", "revert the encoding");
    gitOk(laptop.root, laptop.home, "push", "-q", "origin", "HEAD:main");
    await a.call("memory.save", { text: "The canary fleet moved to eu-central-2" });
    await until(a, async () => remoteHas(remote, desktop.home, "eu-central-2"));
    await waitUntil(
      async () => git(desktop.root, desktop.home, "cat-file", "-e", "HEAD:.gitattributes").code !== 0,
      20_000,
    );
    const st = await gitState(a);
    expect(st.state).toBe("ok");
    const day = gitOk(remote, desktop.home, "ls-tree", "--name-only", "main", "memory/").trim().split("\n")[0]!;
    const bytes = Buffer.from(gitOk(remote, desktop.home, "show", `main:${day}`));
    expect(bytes.includes(0)).toBe(false); // no UTF-16 in the history cortexd wrote
  }, 90_000);

  it("a teammate's commit holding conflict-marker lines (no merge) is not a conflict: healthy, saves go to the day's log", async () => {
    const { desktop, laptop } = bareRemoteAndTwoClones();
    const a = await syncingDaemon(desktop, "desktop");
    const first = await a.call("memory.save", { text: "The release train leaves on Thursdays" });
    await until(a, async () => (await gitState(a)).lastResult?.includes("pushed") ?? false);
    gitOk(laptop.root, laptop.home, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main");
    const file = join(laptop.root, first.path);
    writeFileSync(
      file,
      readFileSync(file, "utf8") + "- how git shows a conflict:\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> other\n",
    );
    commitPullPush(laptop, "document conflict markers");
    await until(a, async () => readSynced(join(desktop.root, first.path)).includes(">>>>>>> other"));
    await new Promise((r) => setTimeout(r, 1500)); // indexed after the pull
    const st = await a.call("cortex.status", {});
    expect(st.workspaces[0]!.conflicts).toBeUndefined();
    expect(st.healthy).toBe(true);
    const saved = await a.call("memory.save", { text: "The freeze starts on the 20th" });
    expect(saved.path).toBe(first.path);
    expect(saved.conflict).toBeUndefined();
  }, 90_000);

  it("a remote whose name has a `/`: fetched, merged and pushed by its real name", async () => {
    const { remote, desktop } = bareRemoteAndTwoClones();
    gitOk(desktop.root, desktop.home, "remote", "rename", "origin", "team/memory");
    gitOk(desktop.root, desktop.home, "branch", "-q", "--set-upstream-to=team/memory/main", "main");
    const a = await syncingDaemon(desktop, "desktop");
    await a.call("memory.save", { text: "The pager rota changes on Mondays" });
    await until(a, async () => remoteHas(remote, desktop.home, "pager rota") && (await settled(a)));
    expect((await gitState(a)).state).toBe("ok");
  }, 60_000);
});
