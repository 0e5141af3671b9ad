import { expect, it } from "vitest";
import { InsertLog } from "../src/index/keyword/postings-inserts.js";

it("gives the ids inserted after a version, ascending and distinct, until the log no longer reaches it", () => {
  const log = new InsertLog(8);
  log.record(50, 1);
  log.record(7, 2);
  log.record(50, 3); // an id handed out again
  log.record(9, 3);
  expect([...log.since(0)!]).toEqual([7, 9, 50]);
  expect([...log.since(2)!]).toEqual([9, 50]);
  expect(log.countSince(2)).toBe(2);
  expect([...log.since(3)!]).toEqual([]);
  // Past its bound the older half goes: a summary older than that must be built again.
  for (let v = 4; v < 9; v++) log.record(100 + v, v);
  expect(log.countSince(0)).toBeNull();
  expect(log.since(2)).toBeNull();
  expect([...log.since(3)!]).toEqual([104, 105, 106, 107, 108]);
});
