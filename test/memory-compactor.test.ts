import pino from "pino";
import { describe, expect, it } from "vitest";
import { MemoryCompactor } from "../src/daemon/memory-compactor.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MB = 1048576;

describe("MemoryCompactor", () => {
  it("collects once the daemon has been idle, only when memory grew, never while it is busy", async () => {
    let used = 100 * MB;
    let runs = 0;
    const c = new MemoryCompactor({
      gc: () => {
        runs++;
        used = 104 * MB; // what a collection leaves
      },
      logger: pino({ level: "silent" }),
      idleMs: 60,
      growthBytes: 8 * MB,
      usage: () => used,
    });
    used = 103 * MB; // grew a little
    c.noteWork();
    await sleep(120);
    expect(runs).toBe(0); // not worth a collection
    for (let i = 0; i < 5; i++) {
      used += 5 * MB; // a burst of work
      c.noteWork();
      await sleep(20);
    }
    expect(runs).toBe(0); // busy: wait
    await sleep(120);
    expect(runs).toBe(1);
    expect(c.stats.runs).toBe(1);
    expect(c.stats.lastAfterBytes).toBeGreaterThan(0);
    c.noteWork(); // work that allocated nothing new since the collection
    await sleep(120);
    expect(runs).toBe(1);
    c.close();
  });

  it("does nothing when Node was started without --expose-gc", async () => {
    let used = 0;
    const c = new MemoryCompactor({ gc: undefined, logger: pino({ level: "silent" }), idleMs: 10, usage: () => used });
    expect(c.available).toBe(false);
    used = 1000 * MB;
    c.noteWork();
    await sleep(40);
    expect(c.stats.runs).toBe(0);
  });
});
