import { describe, expect, it } from "vitest";
import { IdSlots } from "../src/index/repos/id-slots.js";

describe("IdSlots", () => {
  it("finds every id a Map would after random adds and removes (slots reused, ids reused, the table grown)", () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const ids: number[] = [];
    const slots = new IdSlots((s) => ids[s]!);
    const truth = new Map<number, number>();
    const free: number[] = [];
    let nextId = 1;
    for (let round = 0; round < 20_000; round++) {
      const r = rnd();
      if (r < 0.55 || truth.size === 0) {
        // New ids mostly ascending, now and then one reused or far away (sparse ids).
        const id =
          rnd() < 0.1 && free.length > 0 ? ids[free[free.length - 1]!]! : rnd() < 0.05 ? nextId + 1e6 : nextId++;
        if (truth.has(id)) continue;
        const s = free.pop() ?? ids.length;
        ids[s] = id;
        slots.set(s);
        truth.set(id, s);
      } else {
        const keys = [...truth.keys()];
        const id = keys[Math.floor(rnd() * keys.length)]!;
        slots.delete(id);
        free.push(truth.get(id)!);
        truth.delete(id);
      }
      if (round % 997 === 0) {
        for (const [id, s] of truth) expect(slots.get(id)).toBe(s);
        expect(slots.size).toBe(truth.size);
      }
    }
    for (const [id, s] of truth) expect(slots.get(id)).toBe(s);
    for (const s of free) if (!truth.has(ids[s]!)) expect(slots.get(ids[s]!)).toBe(-1);
    expect(slots.get(0)).toBe(-1);
    expect(slots.get(2 ** 31 - 1)).toBe(-1);
    slots.delete(123_456_789); // absent: nothing happens
    expect(slots.size).toBe(truth.size);
  });

  it("is sized for the ids it expects when reset, and empty", () => {
    const ids = Array.from({ length: 1000 }, (_, i) => i * 3 + 1);
    const slots = new IdSlots((s) => ids[s]!);
    slots.reset(1000);
    const bytes = slots.bytes;
    ids.forEach((_, s) => slots.set(s));
    expect(slots.bytes).toBe(bytes); // no rehash: at most half full
    expect(slots.get(4)).toBe(1);
    slots.reset();
    expect(slots.size).toBe(0);
    expect(slots.get(4)).toBe(-1);
  });
});
