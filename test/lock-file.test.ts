import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { assertBuilt } from "./helpers/cli.js";
import { tempDir } from "./helpers/workspace.js";
import { holderAlive, readLock, takeLock, tryTakeLock, type ReadLock, type Verdict } from "../src/util/lock-file.js";

/** The built module (npm test builds first), so a second process runs the same code. */
const BUILT = resolve(import.meta.dirname, "../dist/src/util/lock-file.js");

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
});

const lockIn = () => join(tempDir("cxlockfile-"), "x.lock");

/** A second process that takes the lock with the real module, says "taken", then holds it until killed. */
async function holderProcess(path: string): Promise<ChildProcess> {
  assertBuilt();
  const script = `
    const { tryTakeLock } = await import(${JSON.stringify(BUILT)});
    if (!tryTakeLock(process.argv[1], { by: "child" })) { console.log("busy"); process.exit(1); }
    console.log("taken");
    setInterval(() => {}, 1e6);`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script, path], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const said = await new Promise<string>((r) => child.stdout!.once("data", (d: Buffer) => r(d.toString().trim())));
  expect(said).toBe("taken");
  return child;
}

const byPid =
  (path: string) =>
  (cur: ReadLock): Verdict =>
    cur.record && holderAlive(cur.record, path) ? "wait" : "stale";

describe("lock file", () => {
  it("is created owner-only with pid, host and token; a second take fails; release deletes it", () => {
    const path = lockIn();
    const lock = tryTakeLock(path, { purpose: "test" })!;
    expect(lock).not.toBeNull();
    const onDisk = JSON.parse(readFileSync(path, "utf8"));
    expect(onDisk).toMatchObject({ pid: process.pid, host: hostname(), purpose: "test", token: lock.record.token });
    expect(tryTakeLock(path, {})).toBeNull();
    expect(holderAlive(onDisk, path)).toBe(true);
    expect(lock.release()).toBe(true);
    expect(existsSync(path)).toBe(false);
    // Our own pid in a lock we do not hold (a pid reused after a restart) is not a live holder.
    expect(holderAlive(onDisk, path)).toBe(false);
  });

  it("release leaves a lock that someone else has taken since alone", () => {
    const path = lockIn();
    const lock = tryTakeLock(path, {})!;
    writeFileSync(path, JSON.stringify({ pid: 4242, token: "theirs" }));
    expect(lock.stillOurs()).toBe(false);
    expect(lock.release()).toBe(false);
    expect(readLock(path)?.record?.token).toBe("theirs");
  });

  it("a live second process's lock is waited for (until the deadline); once it is killed, the lock is taken over", async () => {
    const path = lockIn();
    const child = await holderProcess(path);
    const held = readLock<{ by: string }>(path)!;
    expect(held.record).toMatchObject({ pid: child.pid, by: "child" });
    expect(holderAlive(held.record!, path)).toBe(true);
    await expect(
      takeLock(
        path,
        {},
        { judge: byPid(path), deadline: Date.now() + 300, pollMs: 20, timeout: () => new Error("timed out") },
      ),
    ).rejects.toThrow("timed out");
    expect(readLock(path)?.record?.pid).toBe(child.pid);

    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    const stale: number[] = [];
    const got = await takeLock(
      path,
      { by: "parent" },
      {
        judge: byPid(path),
        deadline: Date.now() + 10_000,
        pollMs: 20,
        timeout: () => new Error("timed out"),
        onStale: (cur) => stale.push(cur.record!.pid),
      },
    );
    expect("taken" in got && got.taken.record.pid).toBe(process.pid);
    expect(stale).toEqual([child.pid]);
    expect(readLock(path)?.record).toMatchObject({ pid: process.pid, by: "parent" });
    if ("taken" in got) got.taken.release();
  });

  it("a lock from another host is not judged by its pid", () => {
    const path = lockIn();
    expect(holderAlive({ pid: 999_999_999, host: `not-${hostname()}` }, path)).toBe(true);
    expect(holderAlive({ pid: 999_999_999, host: hostname() }, path)).toBe(false);
  });

  it("a judge's \"held\" returns the holder's lock without touching it", async () => {
    const path = lockIn();
    const child = await holderProcess(path);
    const got = await takeLock(
      path,
      {},
      { judge: () => "held", deadline: Date.now() + 1000, pollMs: 20, timeout: () => new Error("timed out") },
    );
    expect("holder" in got && got.holder.record?.pid).toBe(child.pid);
    expect(readLock(path)?.record?.pid).toBe(child.pid);
  });
});
