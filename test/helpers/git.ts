import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./workspace.js";

/** A home for git with an identity and no system config: tests never read the machine's git setup. */
export function gitHome(name: string): string {
  const home = tempDir(`cortexd-git-${name}-`);
  writeFileSync(
    join(home, ".gitconfig"),
    `[user]\n\tname = ${name}\n\temail = ${name}@example.test\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n`,
  );
  return home;
}

export function gitEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    LC_ALL: "C",
  };
}

/** Runs the real system git; returns code and output (never throws on a non-zero exit). */
export function git(cwd: string, home: string, ...args: string[]): { code: number | null; out: string } {
  const r = spawnSync("git", args, { cwd, env: gitEnv(home), encoding: "utf8", timeout: 60_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Like git() but throws with the output when git fails. */
export function gitOk(cwd: string, home: string, ...args: string[]): string {
  const r = git(cwd, home, ...args);
  if (r.code !== 0) throw new Error(`git ${args.join(" ")} failed (${r.code}): ${r.out}`);
  return r.out;
}

export interface TwoClones {
  remote: string;
  desktop: { root: string; home: string };
  laptop: { root: string; home: string };
}

/**
 * A bare remote with one commit (MEMORY.md, memory/) and two clones of it, "desktop" and "laptop",
 * each with its own git identity (its own HOME).
 */
export function bareRemoteAndTwoClones(
  files: Record<string, string> = { "MEMORY.md": "# Memory\n\n- The team ships on Fridays.\n" },
): TwoClones {
  const base = tempDir("cortexd-remote-");
  const remote = join(base, "memory.git");
  const seedHome = gitHome("seed");
  gitOk(base, seedHome, "init", "--bare", "-b", "main", remote);
  const seed = join(base, "seed");
  gitOk(base, seedHome, "clone", "-q", remote, seed);
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(join(seed, rel, ".."), { recursive: true });
    writeFileSync(join(seed, rel), content);
  }
  gitOk(seed, seedHome, "add", "-A");
  gitOk(seed, seedHome, "commit", "-q", "-m", "seed");
  gitOk(seed, seedHome, "push", "-q", "origin", "main");
  const clone = (name: string) => {
    const home = gitHome(name);
    const root = join(base, name);
    gitOk(base, home, "clone", "-q", remote, root);
    return { root, home };
  };
  return { remote, desktop: clone("desktop"), laptop: clone("laptop") };
}

/** commit -a (plus new files under memory/), pull (merge), push: what a person does by hand. */
export function commitPullPush(
  c: { root: string; home: string },
  message: string,
): { pull: { code: number | null; out: string } } {
  gitOk(c.root, c.home, "add", "-A");
  const st = gitOk(c.root, c.home, "status", "--porcelain");
  if (st.trim()) gitOk(c.root, c.home, "commit", "-q", "-m", message);
  const pull = git(c.root, c.home, "pull", "--no-rebase", "--no-edit", "origin", "main");
  if (pull.code === 0) gitOk(c.root, c.home, "push", "-q", "origin", "HEAD:main");
  return { pull };
}

/** Git's conflict markers at the start of a line. */
export const CONFLICT_MARKERS = /^(<{7}|={7}|>{7})/m;

/** What a person does with a conflicted memory file: keep both sides (drop the marker lines), add, commit the merge. */
export function resolveKeepingBoth(c: { root: string; home: string }, rel: string, conflicted: string): void {
  writeFileSync(
    join(c.root, rel),
    conflicted
      .split("\n")
      .filter((l) => !CONFLICT_MARKERS.test(l))
      .join("\n"),
  );
  gitOk(c.root, c.home, "add", rel);
  gitOk(c.root, c.home, "commit", "-q", "--no-edit");
}

/** A synced file's text, "" while it is missing (git replaces a file it merges: unlink, then a new file). */
export function readSynced(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
