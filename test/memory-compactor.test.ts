import pino from "pino";
import { describe, expect, it } from "vitest";
import { MemoryCompactor } from "../src/daemon/memory-compactor.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("MemoryCompactor", () => {
  it("collects once, after the daemon has been idle, and only after enough work", async () => {
    let runs = 0;
    const c = new MemoryCompactor({ gc: () => runs++, logger: pino({ level: "silent" }), idleMs: 60, threshold: 100 });
    c.noteWork(50);
    await sleep(120);
    expect(runs).toBe(0); // not enough work yet
    for (let i = 0; i < 5; i++) {
      c.noteWork(30); // crosses the threshold, then keeps working: no collection while busy
      await sleep(20);
    }
    expect(runs).toBe(0);
    await sleep(120);
    expect(runs).toBe(1);
    expect(c.stats.runs).toBe(1);
    expect(c.stats.lastAfterBytes).toBeGreaterThan(0);
    await sleep(120);
    expect(runs).toBe(1); // nothing new: no further collections
    c.close();
  });

  it("does nothing when Node was started without --expose-gc", async () => {
    const c = new MemoryCompactor({ gc: undefined, logger: pino({ level: "silent" }), idleMs: 10, threshold: 1 });
    expect(c.available).toBe(false);
    c.noteWork(1000);
    await sleep(40);
    expect(c.stats.runs).toBe(0);
  });
});
