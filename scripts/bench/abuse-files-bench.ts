import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  rpcLine,
  RawClient,
  runAttack,
  type AttackOutcome,
  type AttackResult,
  type AttackTarget,
} from "./abuse-attacks.js";
import {
  callsInParallel,
  hugeLog,
  linkDevZero,
  makeFifo,
  memoryPath,
  singleLineNote,
  today,
  twoWaves,
  type Call,
} from "./abuse-files.js";
import { CortexClient } from "../../src/client/client.js";
import { spawnDaemon, stopDaemon, waitIndexed } from "./daemon-proc.js";
import { freshDir } from "./util.js";

/**
 * The hostile files of issue #34 for `npm run bench -- abuse`: each attack on a fresh daemon
 * (keyword-only) over a small workspace, with the file put in place first (a FIFO or a /dev/zero
 * link for config.json, today's log or MEMORY.md; a 200 MB log; a 50 MB single line; a log past the
 * index's cap), then the requests that read it; and the growth of history (saves in a row, session
 * touches). The same attacks, smaller, are test/hostile-files.test.ts and test/save-costs.test.ts.
 */

interface FileAttack {
  name: string;
  /** Puts the hostile file in place (before the daemon starts, or after: `late`). */
  setup?: (root: string, home: string) => void;
  late?: boolean;
  attack: (t: AttackTarget, root: string) => Promise<AttackOutcome>;
}

const none = (): AttackOutcome => ({ sent: 0, answered: 0, errors: {}, malformed: 0, expectsAll: true });
const configFile = (home: string) => join(home, ".config", "cortexd", "config.json");
const starts = (prefix: string): Call[] =>
  [1, 2, 3, 4].map((i) => ({ method: "session.start", params: { session_id: `${prefix}-${i}` } }));

/** Sends calls one after another on one connection; the time of each, in ms. */
async function inSequence(t: AttackTarget, calls: Call[]): Promise<{ out: AttackOutcome; ms: number[] }> {
  const c = await RawClient.connect(t.socket);
  const ms: number[] = [];
  try {
    for (let i = 0; i < calls.length; i++) {
      const t0 = performance.now();
      c.send(rpcLine(i + 1, calls[i]!.method, calls[i]!.params ?? {}));
      await c.until(i + 1);
      ms.push(performance.now() - t0);
    }
    return {
      out: { sent: calls.length, answered: c.answered, errors: c.errors, malformed: c.malformed, expectsAll: true },
      ms,
    };
  } finally {
    c.socket.destroy();
  }
}

/** 8 words of a 10,000-word vocabulary, different for each i (as test/save-costs.test.ts). */
function saveText(i: number): string {
  const SYL = ["ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "zi", "pa"];
  const word = (n: number) =>
    SYL[n % 10]! + SYL[Math.floor(n / 10) % 10]! + SYL[Math.floor(n / 100) % 10]! + (n >= 1000 ? "x" : "");
  return (
    Array.from({ length: 8 }, (_, k) =>
      word(createHash("md5").update(`${i}:${k}`).digest().readUInt32LE(0) % 10_000),
    ).join(" ") + ` (${i})`
  );
}

const rchar = (pid: number) => Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, "utf8"))?.[1] ?? 0);

function attacks(saves: number, notes: string[]): FileAttack[] {
  return [
    {
      name: "reload ×2, config.json a FIFO",
      setup: (_r, home) => makeFifo(configFile(home)),
      late: true,
      attack: (t) => callsInParallel(t, [{ method: "daemon.reload" }, { method: "daemon.reload" }]),
    },
    {
      name: "reload ×2, config.json → /dev/zero",
      setup: (_r, home) => linkDevZero(configFile(home)),
      late: true,
      attack: (t) => callsInParallel(t, [{ method: "daemon.reload" }, { method: "daemon.reload" }]),
    },
    {
      name: "session.start ×4 + 4 more, log a FIFO",
      setup: (root) => makeFifo(memoryPath(root)),
      late: true,
      attack: (t) =>
        twoWaves(t, starts("fifo"), [
          { method: "memory.search", params: { query: "lemon cake" } },
          { method: "cortex.status" },
          { method: "memory.save", params: { text: "the kestrel left the north tower" } },
          { method: "session.touch", params: { session_id: "fifo-1", prompt: "what did Sam bake" } },
        ]),
    },
    {
      name: "session.start ×4, 200 MB log",
      setup: (root) => hugeLog(memoryPath(root), 200, today()),
      late: true,
      attack: (t) => callsInParallel(t, starts("big")),
    },
    {
      name: "promote.list ×2, MEMORY.md a FIFO",
      setup: (root) => makeFifo(join(root, "MEMORY.md")),
      late: true,
      attack: (t) => callsInParallel(t, [{ method: "promote.list" }, { method: "promote.list" }]),
    },
    {
      name: "promote.list ×2, MEMORY.md → /dev/zero",
      setup: (root) => linkDevZero(join(root, "MEMORY.md")),
      late: true,
      attack: (t) => callsInParallel(t, [{ method: "promote.list" }, { method: "promote.list" }]),
    },
    {
      name: "50 MB single-line note moved in",
      attack: async (t, root) => {
        const tmp = join(freshDir(join(root, "..", "tmp-line")), "one-line.md");
        singleLineNote(tmp, 50);
        renameSync(tmp, join(root, "memory", "one-line.md"));
        // indexed once status reports the file cut at the per-file cap
        const c = await CortexClient.connect(t.socket, { timeoutMs: 60_000 });
        try {
          const end = Date.now() + 120_000;
          while (Date.now() < end && (await c.call("cortex.status", {})).workspaces[0]!.repaired.total === 0)
            await new Promise((r) => setTimeout(r, 200));
        } finally {
          c.close();
        }
        return none();
      },
    },
    {
      name: "50 MB single-line note deleted",
      // Indexed at start (up to the per-file cap), then deleted: its chunks leave the index in slices.
      setup: (root) => singleLineNote(join(root, "memory", "one-line.md"), 50),
      attack: async (t, root) => {
        const c = await CortexClient.connect(t.socket, { timeoutMs: 60_000 });
        try {
          const files = (await c.call("cortex.status", {})).workspaces[0]!.files;
          rmSync(join(root, "memory", "one-line.md"));
          const end = Date.now() + 120_000;
          while (Date.now() < end && (await c.call("cortex.status", {})).workspaces[0]!.files !== files - 1)
            await new Promise((r) => setTimeout(r, 200));
        } finally {
          c.close();
        }
        return none();
      },
    },
    {
      name: "save into a 65 MB log (rolls over)",
      setup: (root) => hugeLog(memoryPath(root), 65, today()),
      late: true,
      attack: (t) =>
        callsInParallel(t, [{ method: "memory.save", params: { text: "the osprey returned to the harbour mast" } }]),
    },
    {
      name: `${saves.toLocaleString("en")} saves + ${(saves / 10).toLocaleString("en")} touches`,
      attack: async (t) => {
        const calls: Call[] = [];
        for (let i = 0; i < saves; i++) {
          calls.push({ method: "memory.save", params: { text: saveText(i) } });
          if (i % 10 === 0)
            calls.push({ method: "session.touch", params: { session_id: `s-${i % 50}`, prompt: saveText(i) } });
        }
        const r0 = rchar(t.pid);
        const { out, ms } = await inSequence(t, calls);
        const saveMs = ms.filter((_, i) => calls[i]!.method === "memory.save");
        const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
        notes.push(
          `${saves} saves: first 100 ${sum(saveMs.slice(0, 100)).toFixed(0)} ms, last 100 ${sum(saveMs.slice(-100)).toFixed(0)} ms, ` +
            `all ${(sum(ms) / 1000).toFixed(1)} s; the daemon read ${((rchar(t.pid) - r0) / calls.length / 1024).toFixed(1)} KiB per call`,
        );
        return out;
      },
    },
  ];
}

/** Runs the hostile-file attacks, each on its own daemon; notes get lines of extra figures. */
export async function fileAttacks(base: string, saves: number, notes: string[]): Promise<AttackResult[]> {
  const results: AttackResult[] = [];
  for (const [i, a] of attacks(saves, notes).entries()) {
    const dir = freshDir(join(base, `files-${i}`));
    const root = join(dir, "ws");
    mkdirSync(join(root, "memory"), { recursive: true });
    writeFileSync(join(root, "MEMORY.md"), "# Memory\n\n- the release pipeline is owned by the heron team\n");
    writeFileSync(
      join(root, "memory", "2026-01-05.md"),
      "# 2026-01-05\n\n- Sam baked a lemon drizzle cake for the team lunch on Friday.\n",
    );
    const home = join(dir, "home");
    if (a.setup && !a.late) a.setup(root, home);
    const d = await spawnDaemon({ home, root, provider: "none", stderr: "ignore" });
    try {
      await waitIndexed(d, "none");
      if (a.setup && a.late) a.setup(root, home);
      results.push(await runAttack(a.name, { socket: d.socket, pid: d.child.pid! }, (t) => a.attack(t, root)));
      console.error(`done: ${a.name}`);
    } finally {
      await stopDaemon(d);
    }
  }
  return results;
}
