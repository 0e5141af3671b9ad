import { describe, expect, it } from "vitest";
import { FairQueue, type Task } from "../src/rpc/fair-queue.js";

function task(log: string[], name: string, gate?: Promise<void>): Task {
  return {
    run: async () => {
      log.push(`start ${name}`);
      await gate;
      log.push(`end ${name}`);
    },
    drop: () => log.push(`drop ${name}`),
  };
}

const turn = () => new Promise<void>((r) => setImmediate(r));

describe("fair queue", () => {
  it("starts a task at once when nothing runs or waits; the others start one per turn of the event loop", async () => {
    const q = new FairQueue(4);
    const a = q.lane();
    const b = q.lane();
    const log: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    q.submit(a, task(log, "a1", gate));
    expect(log).toEqual(["start a1"]); // no event-loop turn in between
    q.submit(a, task(log, "a2", gate));
    q.submit(a, task(log, "a3", gate));
    q.submit(b, task(log, "b1", gate));
    expect(log).toEqual(["start a1"]); // something runs: these are queued
    await turn();
    expect(log.length).toBe(2);
    await turn();
    await turn();
    expect(log.sort()).toEqual(["start a1", "start a2", "start a3", "start b1"]);
    open();
    await turn();
    await turn();
    expect(log.filter((l) => l.startsWith("end")).length).toBe(4);
  });

  it("a held lane's task does not start at once, and a closed lane's tasks are dropped", async () => {
    const q = new FairQueue(1);
    const a = q.lane();
    const log: string[] = [];
    a.held = true;
    q.submit(a, task(log, "a1"));
    await turn();
    expect(log).toEqual([]);
    q.close(a);
    expect(log).toEqual(["drop a1"]);
  });
});
