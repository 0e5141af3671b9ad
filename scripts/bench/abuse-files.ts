import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, rmSync, symlinkSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { RawClient, rpcLine, type AttackOutcome, type AttackTarget } from "./abuse-attacks.js";

/**
 * Hostile files (issue #34): what a teammate's commit, a careless script or a bad config can put
 * where cortexd reads — a FIFO, a link to /dev/zero, a 200 MB daily log, a 50 MB single line — and
 * the requests that read them. Shared by test/hostile-files.test.ts and `npm run bench -- abuse`.
 * Every attack waits for its answers at most `waitMs`: an unanswered request counts as such, it
 * does not hang the caller.
 */

export interface Call {
  method: string;
  params?: unknown;
}

/** Sends each call on its own connection (so they run side by side); waits for every answer or waitMs. */
export async function callsInParallel(t: AttackTarget, calls: Call[], waitMs = 20_000): Promise<AttackOutcome> {
  const clients = await Promise.all(calls.map(() => RawClient.connect(t.socket)));
  calls.forEach((c, i) => clients[i]!.send(rpcLine(i + 1, c.method, c.params ?? {})));
  await waitAll(clients, waitMs);
  return outcome(clients, calls.length);
}

/** The calls in two waves: `first` side by side, then (while they may still run) `then`, each on its own connection. */
export async function twoWaves(t: AttackTarget, first: Call[], then: Call[], waitMs = 20_000): Promise<AttackOutcome> {
  const a = await Promise.all(first.map(() => RawClient.connect(t.socket)));
  first.forEach((c, i) => a[i]!.send(rpcLine(i + 1, c.method, c.params ?? {})));
  await new Promise((r) => setTimeout(r, 300));
  const b = await Promise.all(then.map(() => RawClient.connect(t.socket)));
  then.forEach((c, i) => b[i]!.send(rpcLine(i + 1, c.method, c.params ?? {})));
  await waitAll([...a, ...b], waitMs);
  return outcome([...a, ...b], first.length + then.length);
}

async function waitAll(clients: RawClient[], waitMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(clients.map((c) => c.until(1))),
    new Promise<void>((r) => (timer = setTimeout(r, waitMs))),
  ]);
  clearTimeout(timer);
}

function outcome(clients: RawClient[], sent: number): AttackOutcome {
  const errors: Record<string, number> = {};
  let answered = 0;
  let malformed = 0;
  for (const c of clients) {
    answered += c.answered;
    malformed += c.malformed;
    for (const [k, v] of Object.entries(c.errors)) errors[k] = (errors[k] ?? 0) + v;
    c.socket.destroy();
  }
  return { sent, answered, errors, malformed, expectsAll: true };
}

/** Replaces `path` by a FIFO (nobody ever writes to it). */
export function makeFifo(path: string): void {
  rmSync(path, { force: true });
  mkdirSync(dirname(path), { recursive: true });
  execFileSync("mkfifo", [path]);
}

/** Replaces `path` by a symlink to /dev/zero (an endless file). */
export function linkDevZero(path: string): void {
  rmSync(path, { force: true });
  mkdirSync(dirname(path), { recursive: true });
  symlinkSync("/dev/zero", path);
}

/**
 * A daily log of `mb` MB: a sparse run of zero bytes (free on disk, not a byte of it is a line)
 * followed by a few real entries, so only a reader of the whole file pays for its size.
 */
export function hugeLog(path: string, mb: number, date: string): void {
  rmSync(path, { force: true });
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, "w");
  try {
    writeSync(fd, `# ${date}\n\n`);
    const tail = Buffer.from(`\n- the huge log's last entry: the kestrel nests on the north tower\n`);
    writeSync(fd, tail, 0, tail.length, mb * 1024 * 1024);
  } finally {
    closeSync(fd);
  }
}

/** A note of one line of `mb` MB of words (no newline): the chunker's and the index's worst case. */
export function singleLineNote(path: string, mb: number): void {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, "w");
  try {
    writeSync(fd, "# one line\n\n");
    const words = Buffer.from("heron kestrel plover dunlin sanderling ".repeat(1700)); // ~66 KB
    for (let written = 0; written < mb * 1024 * 1024; written += words.length) writeSync(fd, words);
  } finally {
    closeSync(fd);
  }
}

/** A local calendar day as YYYY-MM-DD (the daemon's "today"). */
export function today(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${p(now.getMonth() + 1)}-${p(now.getDate())}`;
}

export const memoryPath = (root: string, day = today()) => join(root, "memory", `${day}.md`);
