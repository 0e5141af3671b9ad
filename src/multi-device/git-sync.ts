import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { KeyedLock } from "../memory-files/append.js";
import type { WriteHooks } from "../memory-files/writer.js";
import { errorMessage } from "../util/error-message.js";
import { gitMessage, runGit, type GitResult } from "./git.js";
import { neutraliseAttributes, upstreamOf } from "./git-repo.js";
import type { WorkspaceStatus } from "../rpc/protocol.js";

/** What status shows for a workspace's scheduled git sync (the wire type's shape). */
export type GitSyncStatus = NonNullable<WorkspaceStatus["gitSync"]>;

export interface GitSyncTarget {
  name: string;
  root: string;
}

export interface GitSyncDeps {
  device: string;
  /** Called after a pull changed files: index the workspace now (one pass). */
  onPulled: (ws: GitSyncTarget) => Promise<void>;
  env?: NodeJS.ProcessEnv;
  clock?: () => number;
  timeoutMs?: number;
}

/**
 * Scheduled sync of a git-backed workspace with the system git: commit cortexd's own appends (the
 * files it wrote, nothing else), pull with a merge (never a rebase), push (never forced). A pull
 * that stops on a conflict leaves git's merge for the user and stops syncing this workspace (status
 * says which files and how to fix it); once the merge is committed, the next run syncs again. It
 * never rewrites history and runs only in a workspace that is the root of its repository, so it
 * never touches files outside the workspace.
 */
export class GitSync implements WriteHooks {
  private readonly state = new Map<string, GitSyncStatus>();
  /** Per workspace: cortexd's writes and git's commit + merge take turns (a merge replaces files). */
  private readonly gate = new KeyedLock();
  /** Per workspace: one run at a time (the schedule's and `cortexd sync now`'s). */
  private readonly runs = new KeyedLock();
  /** Files cortexd appended to, per workspace, not yet committed. */
  private readonly pendingFiles = new Map<string, Set<string>>();
  /** Per workspace: the files git said were unmerged at the last run (the only conflicted files). */
  private readonly unmergedFiles = new Map<string, ReadonlySet<string>>();

  constructor(private readonly deps: GitSyncDeps) {}

  /** A workspace with a schedule: status shows it from now on. */
  register(ws: GitSyncTarget, schedule: string): void {
    this.state.set(ws.name, { schedule, state: "idle", lastRun: null, lastResult: null });
  }

  around<T>(ws: GitSyncTarget, fn: () => Promise<T>): Promise<T> {
    return this.state.has(ws.name) ? this.gate.run(ws.name, fn) : fn();
  }

  written(ws: GitSyncTarget, key: string): void {
    this.noteWritten(ws, key);
  }

  /** cortexd appended to `key` (a path relative to the root). */
  noteWritten(ws: GitSyncTarget, key: string): void {
    if (!this.state.has(ws.name)) return;
    let set = this.pendingFiles.get(ws.name);
    if (!set) this.pendingFiles.set(ws.name, (set = new Set()));
    set.add(key);
  }

  /**
   * Whether git holds `key` unmerged in this workspace (at its last run), or undefined when this
   * workspace has no git sync. A file is conflicted only when git says so, never from its content.
   */
  conflicted(ws: GitSyncTarget, key: string): boolean | undefined {
    if (!this.state.has(ws.name)) return undefined;
    return this.unmergedFiles.get(ws.name)?.has(key) ?? false;
  }

  /** The files git holds unmerged in the workspace (at the last run), or undefined without git sync. */
  unmergedKeys(name: string): ReadonlySet<string> | undefined {
    return this.state.has(name) ? (this.unmergedFiles.get(name) ?? new Set()) : undefined;
  }

  status(name: string): GitSyncStatus | undefined {
    const s = this.state.get(name);
    return s && { ...s };
  }

  /** One sync run (after any run of the workspace in progress); returns a one-line summary (also kept for status). */
  run(ws: GitSyncTarget): Promise<string> {
    return this.runs.run(ws.name, () => this.runOnce(ws));
  }

  private async runOnce(ws: GitSyncTarget): Promise<string> {
    const st = this.state.get(ws.name) ?? {
      schedule: "manual",
      state: "idle" as const,
      lastRun: null,
      lastResult: null,
    };
    this.state.set(ws.name, st);
    const clock = this.deps.clock ?? Date.now;
    let outcome: Omit<GitSyncStatus, "schedule" | "lastRun">;
    try {
      outcome = await this.runSteps(ws);
    } catch (e) {
      outcome = {
        state: "error",
        lastResult: `error: ${errorMessage(e)}`,
        fix: "see the daemon's log; the next scheduled run tries again (cortexd sync now runs one at once)",
      };
    }
    Object.assign(st, { lastRun: new Date(clock()).toISOString() }, outcome);
    if (!outcome.fix) delete st.fix;
    if (!outcome.conflicted) delete st.conflicted;
    return st.lastResult ?? "";
  }

  private git(ws: GitSyncTarget, ...args: string[]): Promise<GitResult> {
    return runGit(ws.root, args, {
      ...(this.deps.env ? { env: this.deps.env } : {}),
      ...(this.deps.timeoutMs ? { timeoutMs: this.deps.timeoutMs } : {}),
    });
  }

  private async runSteps(ws: GitSyncTarget): Promise<Omit<GitSyncStatus, "schedule" | "lastRun">> {
    const top = await this.git(ws, "rev-parse", "--show-toplevel");
    if (top.code !== 0)
      return {
        state: "error",
        lastResult: `not a git repository: ${gitMessage(top)}`,
        fix: `make ${ws.root} a git clone (git clone <remote> ${ws.root}), or remove "sync.git" from this workspace's config`,
      };
    const realRoot = realpathSync(ws.root);
    if (realpathSync(top.stdout.trim()) !== realRoot) {
      return {
        state: "error",
        lastResult: `the workspace is inside the larger repository ${top.stdout.trim()}: a pull there would change files outside the workspace`,
        fix: 'make the workspace a repository of its own, or remove "sync.git" from its config',
      };
    }
    await neutraliseAttributes((...a) => this.git(ws, ...a));
    // An unfinished merge (ours or one the user started): do not commit, pull or push until it is resolved.
    const unmerged = await this.unmerged(ws);
    const mergeHead = (
      await this.git(ws, "rev-parse", "--path-format=absolute", "--git-path", "MERGE_HEAD")
    ).stdout.trim();
    if (unmerged.length > 0 || (mergeHead && existsSync(mergeHead))) return stopped(unmerged);
    const up = await upstreamOf((...a) => this.git(ws, ...a));
    if (typeof up === "string")
      return {
        state: "error",
        lastResult: "the branch has no upstream to pull from and push to",
        fix: `set one once: git -C ${ws.root} push -u origin ${up}`,
      };
    const { remote, branch } = up;
    // Fetch first (the slow, network part), then commit and merge while cortexd's writes wait: a merge
    // replaces the files it changes, and an append landing in between would be lost.
    const fetch = await this.git(ws, "fetch", "--no-write-fetch-head", remote, branch);
    if (fetch.code !== 0)
      return {
        state: "error",
        lastResult: `fetch failed: ${gitMessage(fetch)}`,
        fix: "check the remote and your credentials; the next scheduled run tries again",
      };
    const merged = await this.gate.run(ws.name, async () => {
      // A commit that fails (a teammate's attributes, a hook-less repo problem) never keeps the
      // teammates' fix from being merged: the merge runs anyway, and the commit is retried next run.
      const committed = await this.commitOwnAppends(ws);
      const before = (await this.git(ws, "rev-parse", "HEAD")).stdout.trim();
      const pull = await this.git(ws, "merge", "--no-edit", `refs/remotes/${remote}/${branch}`);
      const after = (await this.git(ws, "rev-parse", "HEAD")).stdout.trim();
      return { committed, before, pull, after };
    });
    const { committed, before, pull, after } = merged;
    if (pull.code !== 0) {
      const conflicted = await this.unmerged(ws);
      if (conflicted.length > 0) {
        await this.deps.onPulled(ws).catch(() => undefined); // index the conflicted state: markers are flagged, saves go around them
        return stopped(conflicted);
      }
      const why = gitMessage(pull);
      const fix = /local changes|untracked working tree files/i.test(`${pull.stderr}${pull.stdout}`)
        ? "your own uncommitted changes are in the way of the pull: commit or stash them; the next scheduled run tries again"
        : "check the remote and your credentials; the next scheduled run tries again";
      return { state: "error", lastResult: `pull failed: ${why}`, fix };
    }
    if (after !== before) await this.deps.onPulled(ws);
    if (typeof committed === "string")
      return {
        state: "error",
        lastResult: `${committed}${after !== before ? " (the teammates' changes were pulled)" : ""}`,
        fix: "cortexd retries the commit at every run; if it keeps failing, check the repository's .gitattributes and hooks for the memory files (git -C <workspace> status shows the files)",
      };
    const ahead = await this.git(ws, "rev-list", "--count", `refs/remotes/${remote}/${branch}..HEAD`);
    let pushed = "nothing to push";
    if (ahead.code === 0 && Number(ahead.stdout.trim()) > 0) {
      const push = await this.git(ws, "push", remote, `HEAD:${branch}`);
      if (push.code !== 0)
        return {
          state: "error",
          lastResult: `push failed: ${gitMessage(push)}`,
          fix: "the next scheduled run pulls first and pushes again",
        };
      pushed = "pushed";
    }
    const parts = [
      committed ? `committed ${committed} file${committed > 1 ? "s" : ""}` : "nothing to commit",
      after !== before ? "pulled changes" : "up to date",
      pushed,
    ];
    return { state: "ok", lastResult: parts.join(", ") };
  }

  private async unmerged(ws: GitSyncTarget): Promise<string[]> {
    const r = await this.git(ws, "diff", "--name-only", "--diff-filter=U", "-z");
    const files = r.code === 0 ? r.stdout.split("\0").filter(Boolean) : [];
    this.unmergedFiles.set(ws.name, new Set(files));
    return files;
  }

  /** Commits the files cortexd wrote since the last run (and only those); the count, or an error. */
  private async commitOwnAppends(ws: GitSyncTarget): Promise<number | string> {
    const keys = [...(this.pendingFiles.get(ws.name) ?? [])].filter((k) => existsSync(join(ws.root, k)));
    if (keys.length === 0) return 0;
    const add = await this.git(ws, "add", "--", ...keys);
    if (add.code !== 0) return `git add failed: ${gitMessage(add)}`;
    const staged = await this.git(ws, "diff", "--cached", "--name-only", "-z", "--", ...keys);
    const files = staged.stdout.split("\0").filter(Boolean);
    if (files.length === 0) {
      this.pendingFiles.delete(ws.name);
      return 0;
    }
    const identity = (await this.git(ws, "config", "user.email")).stdout.trim()
      ? []
      : ["-c", "user.name=cortexd", "-c", `user.email=cortexd@${this.deps.device}.invalid`];
    const msg = `cortexd: memory saved on ${this.deps.device} (${files.length} file${files.length > 1 ? "s" : ""})\n\n${files.join("\n")}\n`;
    const commit = await this.git(ws, ...identity, "commit", "--no-verify", "-q", "-m", msg, "--", ...files);
    if (commit.code !== 0) return `git commit failed: ${gitMessage(commit)}`;
    this.pendingFiles.delete(ws.name);
    return files.length;
  }
}

function stopped(files: string[]): Omit<GitSyncStatus, "schedule" | "lastRun"> {
  const list = files.length ? files.join(", ") : "the merge in progress";
  return {
    state: "stopped",
    lastResult: `stopped: merge conflict in ${list}`,
    conflicted: files,
    fix: `resolve the conflict in ${list} (keep the lines you want, delete the <<<<<<< ======= >>>>>>> lines), then git add and git commit; syncing resumes at the next scheduled run`,
  };
}
