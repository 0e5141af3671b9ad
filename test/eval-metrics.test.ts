import { describe, expect, it } from "vitest";
import { parseArgs } from "../scripts/eval/args.js";
import {
  aggregate,
  budgetedRecall,
  budgetTexts,
  evidenceIn,
  firstHitRank,
  hitAtK,
  isHit,
  macro,
  marker,
  percentile,
  recallAtK,
  reciprocalRank,
  scoreQuery,
} from "../scripts/eval/metrics.js";
import { f3 } from "../scripts/eval/report.js";
import { modeConfig } from "../scripts/eval/run.js";

describe("evidence markers", () => {
  it("[D1:1] does not match [D1:10] or [D11:1]", () => {
    expect(marker("D1:1")).toBe("[D1:1]");
    expect(isHit("[D1:10] Caroline: hi\n[D11:1] Mel: yo", ["D1:1"])).toBe(false);
    expect(isHit("[D1:10] Caroline: hi\n[D1:1] Mel: yo", ["D1:1"])).toBe(true);
    expect(evidenceIn("[D1:10] a [D2:3] b", ["D1:1", "D1:10", "D2:3", "D2:30"])).toEqual(["D1:10", "D2:3"]);
  });

  it("a marker must be complete: a truncated '[D1:1' is not a hit", () => {
    expect(isHit("text [D1:1", ["D1:1"])).toBe(false);
  });
});

describe("rank metrics", () => {
  const texts = ["[D1:2] no", "[D1:5] other", "[D1:3] yes", "[D1:4] also"];

  it("first hit rank, hit@k and MRR", () => {
    expect(firstHitRank(texts, ["D1:3"])).toBe(3);
    expect(hitAtK(texts, ["D1:3"], 1)).toBe(0);
    expect(hitAtK(texts, ["D1:3"], 3)).toBe(1);
    expect(reciprocalRank(texts, ["D1:3"])).toBeCloseTo(1 / 3);
    expect(reciprocalRank(texts, ["D1:3", "D1:5"])).toBeCloseTo(1 / 2);
    expect(reciprocalRank(texts, ["D9:9"])).toBe(0);
    expect(firstHitRank([], ["D1:1"])).toBeNull();
  });

  it("recall@k counts distinct evidence ids found in the top k", () => {
    expect(recallAtK(texts, ["D1:3", "D1:4"], 3)).toBe(0.5);
    expect(recallAtK(texts, ["D1:3", "D1:4"], 10)).toBe(1);
    expect(recallAtK(texts, ["D1:3", "D1:3"], 3)).toBe(1); // duplicates count once
    expect(recallAtK(texts, [], 3)).toBe(0);
  });
});

describe("budgeted recall", () => {
  it("takes results in order until the budget is used, truncating the last", () => {
    expect(budgetTexts(["aaaa", "bbbb", "cccc"], 10)).toEqual(["aaaa", "bbbb", "cc"]);
    expect(budgetTexts(["aaaa", "bbbb"], 8)).toEqual(["aaaa", "bbbb"]);
    expect(budgetTexts(["aaaa", "bbbb"], 100)).toEqual(["aaaa", "bbbb"]);
    expect(budgetTexts(["aaaa"], 0)).toEqual([]);
    expect(budgetTexts(["aaaaaaaaaa", "b"], 4)).toEqual(["aaaa"]);
  });

  it("counts only markers that fit; a marker cut by truncation is lost", () => {
    const a = "x".repeat(90) + "[D1:1]"; // 96 chars
    const b = "[D1:2] " + "y".repeat(50); // starts at 96
    expect(budgetedRecall([a, b], ["D1:1", "D1:2"], 96)).toBe(0.5);
    expect(budgetedRecall([a, b], ["D1:1", "D1:2"], 101)).toBe(0.5); // "[D1:2" without "]"
    expect(budgetedRecall([a, b], ["D1:1", "D1:2"], 102)).toBe(1);
    expect(budgetedRecall([a, b], ["D1:1", "D1:2"], 95)).toBe(0); // "[D1:1" cut
  });

  it("markers are not formed across result boundaries", () => {
    expect(budgetedRecall(["... [D1:", "1] ..."], ["D1:1"], 1000)).toBe(0);
  });
});

describe("scoreQuery and aggregation", () => {
  it("works with fewer results than k and reports chars", () => {
    const s = scoreQuery(["[D1:1] a", "bb"], ["D1:1", "D2:2"], 8000);
    expect(s.hit).toEqual({ 1: 1, 5: 1, 10: 1, 20: 1 });
    expect(s.recall[20]).toBe(0.5);
    expect(s.rr).toBe(1);
    expect(s.results).toBe(2);
    expect(s.chars).toBe(10);
    expect(s.budgetRecall).toBe(0.5);
  });

  it("micro averages per query; chars per result over all results; macro over groups", () => {
    const q1 = scoreQuery(["[A] xxxx", "yy"], ["A"]); // 8 + 2 chars
    const q2 = scoreQuery(["zz"], ["B"]); // miss
    const a = aggregate([q1, q2]);
    expect(a.n).toBe(2);
    expect(a.hit[1]).toBe(0.5);
    expect(a.mrr).toBe(0.5);
    expect(a.charsPerResult).toBeCloseTo(12 / 3);
    expect(a.budgetRecall).toBe(0.5);
    const g1 = aggregate([q1]);
    const g2 = aggregate([q2, q2, q2]);
    const m = macro([g1, g2]);
    expect(m.n).toBe(4);
    expect(m.mrr).toBe(0.5); // (1 + 0) / 2, not 1/4
    expect(aggregate([q1, q2, q2, q2]).mrr).toBe(0.25);
  });

  it("percentile (nearest rank) and formatting", () => {
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(
      percentile(
        Array.from({ length: 100 }, (_, i) => i + 1),
        95,
      ),
    ).toBe(95);
    expect(percentile([], 50)).toBeNaN();
    expect(f3(0.8444)).toBe(".844");
    expect(f3(1)).toBe("1.000");
    expect(f3(NaN)).toBe("-");
  });
});

describe("eval options", () => {
  it("vector mode runs the vector leg alone; hybrid takes weight overrides", () => {
    const v = modeConfig("vector", {});
    expect([v.vectorWeight, v.textWeight]).toEqual([1, 0]);
    const h = modeConfig("hybrid", { weights: { vector: 0.4, text: 0.6 } });
    expect([h.vectorWeight, h.textWeight]).toEqual([0.4, 0.6]);
  });

  it("parses flags, values and positionals", () => {
    const a = parseArgs(["/data", "--json", "--limit", "5", "--modes=keyword,hybrid", "--keep"]);
    expect(a.positional).toEqual(["/data"]);
    expect(a.flags).toEqual({ json: true, limit: "5", modes: "keyword,hybrid", keep: true });
  });
});
