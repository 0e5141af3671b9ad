import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Logger } from "pino";
import type { WorkspaceEngine } from "../engine/engine.js";
import { quickCheckFailure } from "../index/db/open-checked.js";

const CHILD = fileURLToPath(new URL("./index-check-child.js", import.meta.url));

/**
 * Integrity checks of the indexes too large to check before the daemon answers (`daemon.
 * checkBeforeListeningMb`; quick_check reads the whole file: ~45 s at 1M chunks). Each runs in a
 * child process on a read-only connection once the socket is up; a verdict other than `ok` is
 * handed to `onDamaged`, which moves the index aside and rebuilds it as for damage SQLite reports
 * while running (sync-queue.ts). Until then searches use the index as it is: damage they touch is
 * reported by SQLite and recovered from the same way. A stopping daemon kills the checks.
 */
export class LaterIndexChecks {
  private readonly running = new Set<ChildProcess>();
  private stopped = false;

  constructor(
    private readonly deps: {
      logger: Logger;
      onDamaged: (ws: WorkspaceEngine, e: Error) => void;
      /** The built child script (default: the one beside this module; tests running the sources give dist's). */
      childScript?: string;
    },
  ) {}

  /** Checks the workspace's index in the background; resolves with the verdict (null when none came). */
  check(ws: WorkspaceEngine): Promise<string | null> {
    if (this.stopped) return Promise.resolve(null);
    const started = Date.now();
    const { dbPath, store } = ws;
    const child = spawn(process.execPath, [this.deps.childScript ?? CHILD, dbPath], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.running.add(child);
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err = (err + d).slice(-2000)));
    return new Promise((resolve) => {
      let settled = false;
      const done = (code: number | null, spawnError?: Error) => {
        if (settled) return;
        settled = true;
        this.running.delete(child);
        const ms = Date.now() - started;
        let res: { verdict?: string; error?: string } = {};
        try {
          res = JSON.parse(out) as typeof res;
        } catch {
          res = { error: spawnError?.message ?? (err.trim() || `exit code ${code}`) };
        }
        if (this.stopped) return resolve(null);
        if (res.verdict === undefined) {
          this.deps.logger.warn({ workspace: ws.name, index: dbPath, err: res.error, ms }, "index check could not run");
          return resolve(null);
        }
        if (res.verdict === "ok")
          this.deps.logger.info({ workspace: ws.name, index: dbPath, ms }, "index checked: sound");
        // Only on the index the check read: one recovered since (swapped in a fresh file) is not it.
        else if (ws.store === store) this.deps.onDamaged(ws, quickCheckFailure(res.verdict));
        resolve(res.verdict);
      };
      child.once("error", (e) => done(null, e));
      child.once("close", (code) => done(code));
    });
  }

  /** Ends the checks still running (a stopping daemon). */
  stop(): void {
    this.stopped = true;
    for (const c of this.running) c.kill("SIGKILL");
    this.running.clear();
  }
}
