/**
 * One crash-consistency trial: a real daemon (`cortexd run`, a child process) is SIGKILLed at a
 * seeded random moment while it indexes, saves memories, consolidates (with promotion to
 * MEMORY.md), or all of these at once while the "user" edits files. Then:
 *
 * - every save the daemon acknowledged is in the memory file, at the line it reported;
 * - every MEMORY.md backup is complete (a prefix of MEMORY.md: promotion only appends after it);
 * - the files cortexd appends to end with a newline (no half-written entry);
 * - the daemon restarts on the same data dir without finding its index damaged, and once it has
 *   caught up its index equals a clean `cortexd index` of the files into a fresh data dir.
 *
 * Used by `npm run bench -- crash` (many trials) and by a CI test (a few).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import Database from "better-sqlite3";
import { CortexClient, probeDaemon } from "../../src/client/client.js";
import { mulberry32 } from "../../src/util/prng.js";
import { generateWorkspace } from "./generate.js";
import { dumpIndex } from "./index-dump.js";
import { errorMessage } from "../../src/util/error-message.js";

export const PHASES = ["index", "saves", "consolidate", "mixed"] as const;
export type Phase = (typeof PHASES)[number];

export interface CrashTrialOptions {
  seed: number;
  /** An empty scratch directory for this trial (removed by the caller). */
  dir: string;
  /** The built CLI (dist/src/cli/main.js). */
  cli: string;
  /** A models dir holding the built-in model: vectors on. Without it the trial is keyword-only. */
  modelsDir?: string;
  /** Force a phase (default: drawn from the seed). */
  phase?: Phase;
  /** Workspace size (default: 40–160 files, drawn from the seed). */
  files?: number;
}

export interface CrashTrialResult {
  seed: number;
  phase: Phase;
  files: number;
  /** When the SIGKILL was sent, in ms after the phase's work began. */
  killAfterMs: number;
  /** Saves the daemon acknowledged as stored before it was killed. */
  acked: number;
  /** MEMORY.md had a promoted section when the daemon was killed (the kill came after a promotion). */
  promoted: boolean;
  /** What was found wrong (empty: the trial passed). */
  problems: string[];
  ms: number;
}

const WORDS =
  "amber basil cedar delta ember fjord garnet harbor indigo juniper kelp lantern meadow nectar orchid pebble quartz raven saffron tundra umber velvet willow yarrow zephyr anchor beacon canyon dune estuary".split(
    " ",
  );

interface Acked {
  token: string;
  path: string;
  startLine?: number;
}

interface Daemon {
  child: ChildProcess;
  exited: Promise<void>;
  stderr: () => string;
}

/** Daemons of running trials, so an interrupted stress run leaves none behind. */
const live = new Set<ChildProcess>();

export function killLiveDaemons(): void {
  for (const c of live) c.kill("SIGKILL");
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const v = await fn().catch((e: unknown) => {
      if ((e as { fatal?: boolean }).fatal) throw e;
      last = e;
    });
    if (v) return v;
    if (Date.now() > end)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${errorMessage(last)})` : ""}`,
      );
    await sleep(25);
  }
}

export async function runCrashTrial(opts: CrashTrialOptions): Promise<CrashTrialResult> {
  const t0 = performance.now();
  const r = mulberry32(opts.seed);
  const phase = opts.phase ?? PHASES[opts.seed % PHASES.length]!;
  const nFiles = opts.files ?? 40 + Math.floor(r() * 120);
  const root = join(opts.dir, "ws");
  generateWorkspace(root, nFiles, opts.seed);
  // Entries the consolidation can promote once they have been recalled often enough.
  const facts = [
    "The quokka cluster runs on port 7001",
    "Ilsa prefers the zinnia theme for dashboards",
    "The xylograph backup rotates every ninth day",
  ];
  writeFileSync(join(root, "memory", "2026-01-15.md"), `# 2026-01-15\n\n${facts.map((f) => `- ${f}.`).join("\n")}\n`);

  const home = join(opts.dir, "home");
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local/share"),
    XDG_RUNTIME_DIR: join(home, "run"),
    CORTEXD_LOG_LEVEL: "warn",
    CORTEXD_EMBEDDING_PROVIDER: opts.modelsDir ? "auto" : "none",
  };
  delete env.CORTEXD_CONFIG;
  delete env.CORTEXD_DATA_DIR;
  delete env.CORTEXD_WORKSPACE;
  delete env.CORTEXD_SOCKET;
  delete env.CORTEXD_MODEL;
  mkdirSync(join(home, ".config/cortexd"), { recursive: true });
  writeFileSync(
    join(home, ".config/cortexd/config.json"),
    JSON.stringify({
      workspaces: [{ path: root }],
      daemon: { debounceMs: 50, settleMs: 20 },
      schedule: { autoPromote: true },
    }),
  );
  const dataDir = join(home, ".local/share/cortexd");
  const cleanDir = join(opts.dir, "clean");
  for (const d of [dataDir, cleanDir]) {
    mkdirSync(d, { recursive: true });
    if (opts.modelsDir) symlinkSync(opts.modelsDir, join(d, "models"));
  }
  const socket = join(home, "run", "cortexd", "cortexd.sock");

  const start = (): Daemon => {
    const child = spawn(process.execPath, [opts.cli, "run"], { env, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr!.on("data", (d) => (err = (err + d).slice(-20_000)));
    live.add(child);
    const exited = new Promise<void>((res) => child.once("exit", () => (live.delete(child), res())));
    return { child, exited, stderr: () => err };
  };
  const connect = () =>
    until("the daemon's socket", async () => {
      if (daemon.child.exitCode !== null)
        throw Object.assign(
          new Error(`the daemon exited (${daemon.child.exitCode}): ${daemon.stderr().slice(-1000)}`),
          { fatal: true },
        );
      return (await probeDaemon(socket, 500)).up && CortexClient.connect(socket, { timeoutMs: 60_000 });
    });

  const problems: string[] = [];
  const acked: Acked[] = [];
  let killAfterMs = 0;
  let promoted = false;
  let daemon = start();
  const clients: CortexClient[] = [];
  let stopWork = false;
  const background: Promise<unknown>[] = [];

  /** Saves in a loop; records what the daemon acknowledged. */
  const saver = async (c: CortexClient, worker: number) => {
    for (let i = 0; !stopWork; i++) {
      const token = `crashprobe${opts.seed}w${worker}n${i}`;
      const text = `${token} ${Array.from({ length: 8 }, () => WORDS[Math.floor(r() * WORDS.length)]).join(" ")}`;
      const res = await c
        .call("memory.save", { text, ...(r() < 0.25 ? { target: "memory" as const } : {}) })
        .catch(() => null);
      if (!res) return;
      if (res.stored)
        acked.push({ token, path: res.path, ...(res.startLine !== undefined ? { startLine: res.startLine } : {}) });
    }
  };
  /** The person: appends to old logs, creates, renames and deletes notes (never today's log or MEMORY.md). */
  const editor = async () => {
    for (let i = 0; !stopWork; i++) {
      const k = Math.floor(r() * 4);
      const notes = readdirSync(join(root, "memory", "notes")).filter((f) => f.endsWith(".md"));
      const pickNote = () => join(root, "memory", "notes", notes[Math.floor(r() * notes.length)]!);
      try {
        if (k === 0)
          appendFileSync(
            join(root, "memory", "2026-01-15.md"),
            `- edit ${i}: ${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]}\n`,
          );
        else if (k === 1)
          writeFileSync(
            join(root, "memory", "notes", `new-${opts.seed}-${i}.md`),
            `# New ${i}\n\n${WORDS.slice(i % 10, (i % 10) + 12).join(" ")}\n`,
          );
        else if (k === 2 && notes.length)
          renameSync(pickNote(), join(root, "memory", "notes", `renamed-${opts.seed}-${i}.md`));
        else if (k === 3 && notes.length > 5) unlinkSync(pickNote());
      } catch {
        // a file that just went away: fine
      }
      await sleep(5 + r() * 30);
    }
  };
  const recallFacts = async (c: CortexClient) => {
    for (const f of facts) {
      const words = f.split(" ");
      for (const q of [f, words.slice(1, 4).join(" "), `${words.at(-1)} ${words[1]} ${words.at(-2)}`])
        await c.call("memory.recall", { query: q });
    }
  };

  try {
    let t: number;
    if (phase === "index") {
      t = performance.now();
      killAfterMs = 100 + r() * 1400;
    } else {
      const c = await connect();
      clients.push(c);
      if (phase !== "mixed") {
        // Indexed, model loaded and vectors backfilled: saves answer at once, consolidation has vectors.
        await until("the model and the first index", async () => {
          await c.call("index.sync", {});
          const st = await c.call("cortex.status", {});
          return (!opts.modelsDir || st.embedding.state === "ready") && st.workspaces.every((w) => w.pending === 0);
        });
        await recallFacts(c);
      }
      t = performance.now();
      if (phase === "saves") {
        killAfterMs = 10 + r() * 1500;
        for (let w = 0; w < 3; w++) {
          const cw = await CortexClient.connect(socket, { timeoutMs: 60_000 });
          clients.push(cw);
          background.push(saver(cw, w));
        }
      } else if (phase === "consolidate") {
        killAfterMs = r() * 400;
        background.push(c.call("consolidate.run", {}).catch(() => null));
      } else {
        killAfterMs = 50 + r() * 1500;
        background.push(
          saver(c, 0),
          editor(),
          (async () => {
            await recallFacts(c).catch(() => null);
            await c.call("consolidate.run", {}).catch(() => null);
          })(),
        );
      }
    }
    await sleep(Math.max(0, t + killAfterMs - performance.now()));
    daemon.child.kill("SIGKILL");
    await daemon.exited;
    stopWork = true;
    for (const c of clients.splice(0)) c.close();
    await Promise.all(background);

    checkFiles(root, acked, problems);
    promoted = readFileSync(join(root, "MEMORY.md"), "utf8").includes("## Promoted ");

    // Restart on the same data dir, let it catch up, stop it cleanly.
    daemon = start();
    const c = await connect();
    clients.push(c);
    const st0 = await c.call("cortex.status", {});
    for (const w of st0.workspaces)
      if (w.recovered) problems.push(`index found damaged after the kill: ${w.recovered.reason}`);
    await until(
      "the restarted daemon to catch up",
      async () => {
        await c.call("index.sync", {});
        const st = await c.call("cortex.status", {});
        const modelReady = !opts.modelsDir || st.embedding.state === "ready";
        return modelReady && st.workspaces.every((w) => w.pending === 0 && w.dirty === 0) && st;
      },
      120_000,
    );
    await c.call("index.sync", {});
    c.close();
    clients.length = 0;
    daemon.child.kill("SIGTERM");
    await daemon.exited;
    if (daemon.child.exitCode !== 0)
      problems.push(
        `restarted daemon exited with ${daemon.child.exitCode ?? daemon.child.signalCode}: ${daemon.stderr().slice(-500)}`,
      );

    const clean = spawnSync(
      process.execPath,
      [opts.cli, "index", "--workspace", root, "--data-dir", cleanDir, "--json"],
      { env, encoding: "utf8" },
    );
    if (clean.status !== 0) throw new Error(`clean build failed: ${clean.stderr}`);
    const dbA = only(join(dataDir, "indexes"));
    const dbB = only(join(cleanDir, "indexes"));
    const a = new Database(dbA);
    const b = new Database(dbB);
    try {
      const { load } = await import("sqlite-vec");
      load(a);
      load(b);
      const da = dumpIndex(a) as DumpShape;
      const db = dumpIndex(b) as DumpShape;
      if (!isDeepStrictEqual(da, db)) problems.push(`index differs from a clean build: ${describeDiff(da, db)}`);
    } finally {
      a.close();
      b.close();
    }
  } catch (e) {
    problems.push(`trial error: ${errorMessage(e)}`);
  } finally {
    stopWork = true;
    for (const c of clients) c.close();
    if (daemon.child.exitCode === null && daemon.child.signalCode === null) {
      daemon.child.kill("SIGKILL");
      await daemon.exited;
    }
  }
  return {
    seed: opts.seed,
    phase,
    files: nFiles,
    killAfterMs: Math.round(killAfterMs),
    acked: acked.length,
    promoted,
    problems,
    ms: Math.round(performance.now() - t0),
  };
}

function only(dir: string): string {
  const f = readdirSync(dir).filter((n) => n.endsWith(".sqlite"));
  if (f.length !== 1) throw new Error(`expected one index in ${dir}, found ${f.join(", ") || "none"}`);
  return join(dir, f[0]!);
}

/** Acknowledged saves are in their files at their lines; backups are complete; appended files end with a newline. */
function checkFiles(root: string, acked: readonly Acked[], problems: string[]): void {
  const cache = new Map<string, string[]>();
  const lines = (rel: string) => {
    let l = cache.get(rel);
    if (!l) cache.set(rel, (l = existsSync(join(root, rel)) ? readFileSync(join(root, rel), "utf8").split("\n") : []));
    return l;
  };
  for (const a of acked) {
    const l = lines(a.path);
    if (!l.some((x) => x.includes(a.token))) problems.push(`acknowledged save ${a.token} is missing from ${a.path}`);
    else if (a.startLine !== undefined && !l[a.startLine - 1]?.includes(a.token))
      problems.push(`acknowledged save ${a.token} is not at ${a.path}:${a.startLine}`);
  }
  const memPath = join(root, "MEMORY.md");
  const mem = readFileSync(memPath);
  for (const f of readdirSync(root).filter((n) => n.startsWith("MEMORY.md.bak-"))) {
    const bak = readFileSync(join(root, f));
    if (!mem.subarray(0, bak.length).equals(bak))
      problems.push(`backup ${f} is not a complete copy of MEMORY.md before the promotion`);
  }
  for (const rel of new Set(["MEMORY.md", ...acked.map((a) => a.path)])) {
    const text = existsSync(join(root, rel)) ? readFileSync(join(root, rel), "utf8") : "";
    if (text && !text.endsWith("\n")) problems.push(`${rel} ends mid-line (a partial append)`);
  }
}

interface DumpShape {
  files: { path: string; sha256: string }[];
  chunks: { path: string; seq: number }[];
  vectors: unknown[];
  vecCount: number;
  ftsRows: number;
}

function describeDiff(a: DumpShape, b: DumpShape): string {
  const parts = [
    `files ${a.files.length}/${b.files.length}`,
    `chunks ${a.chunks.length}/${b.chunks.length}`,
    `vectors ${a.vecCount}/${b.vecCount}`,
    `fts ${a.ftsRows}/${b.ftsRows}`,
  ];
  const fa = new Map(a.files.map((f) => [f.path, f]));
  const fb = new Map(b.files.map((f) => [f.path, f]));
  const diff = [...new Set([...fa.keys(), ...fb.keys()])].filter((p) => !isDeepStrictEqual(fa.get(p), fb.get(p)));
  if (diff.length) parts.push(`files differing: ${diff.slice(0, 5).join(", ")}`);
  else {
    const i = a.chunks.findIndex((c, k) => !isDeepStrictEqual(c, b.chunks[k]));
    if (i >= 0) parts.push(`first differing chunk: ${a.chunks[i]?.path}#${a.chunks[i]?.seq}`);
    else parts.push("vectors differ");
  }
  return parts.join(", ");
}

/** Removes a trial's directory (best effort). */
export function removeTrialDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
