/**
 * Time-window recall (search/recall-window.ts): "what did I do yesterday?" gets yesterday's log,
 * "last week" the week's, a topic within the window only its memories, a window too big for the
 * budget a spread over its days — on a real index of real files, with the built-in model (hybrid,
 * the default) and keyword-only.
 */
import { describe, expect, it } from "vitest";
import { recall } from "../src/search/recall.js";
import { suiteIndex } from "./helpers/suite-index.js";

const TASKS = [
  "Reviewed the refund dry-run pull request with Dana",
  "Rotated the staging database credentials",
  "Paired with Sam on the flaky upload test",
  "Wrote the quarterly goals draft",
  "Cleaned up the alerting thresholds for the queue",
  "Benchmarked the search endpoint after the cache change",
  "Planned the offsite agenda with Priya",
];

/** 2026-03-01 … 2026-03-28, three bullets a day, each unique; one day mentions the invoices. */
function workspace(): Record<string, string> {
  const files: Record<string, string> = { "MEMORY.md": "# Memory\n\n- The team deploys on Tuesdays.\n" };
  for (let d = 1; d <= 28; d++) {
    const date = `2026-03-${String(d).padStart(2, "0")}`;
    const lines = [0, 1, 2].map(
      (k) => `- 1${k}:${String(d).padStart(2, "0")} ${TASKS[(d + k) % TASKS.length]} (day ${d}, item ${k})`,
    );
    if (d === 17) lines.push("- 16:00 Decided to batch the Lidl invoices nightly instead of hourly");
    if (d === 5) lines.push("- 16:00 The Lidl invoices were garbled: encoding fixed with iconv");
    if (d % 4 === 1) lines.push("- 19:00 Walked 5 km after work");
    files[`memory/${date}.md`] = `# ${date}\n\n${lines.join("\n")}\n`;
  }
  files["sessions/s1.jsonl"] = [
    { type: "session", id: "s1", timestamp: "2026-03-24T12:00:00.000Z" },
    {
      type: "message",
      timestamp: "2026-03-24T12:00:05.000Z",
      message: { role: "user", content: [{ type: "text", text: "Can you draft the release notes for the uploader?" }] },
    },
  ]
    .map((r) => JSON.stringify(r))
    .join("\n");
  return files;
}

const bulletsOf = (context: string) => [...context.matchAll(/\(day (\d+), item \d\)/g)].map((m) => Number(m[1]));

for (const mode of ["hybrid", "keyword"] as const) {
  describe(`time-window recall (${mode})`, () => {
    const index = suiteIndex(workspace(), mode);
    const ask = (query: string, referenceDate = "2026-03-25", budgetTokens?: number) =>
      recall(index().searcher, index().store, {
        query,
        referenceDate,
        record: false,
        ...(budgetTokens ? { budgetTokens } : {}),
      });

    it("answers 'what did I do yesterday?' with yesterday's whole log and nothing else", async () => {
      const r = await ask("what did I do yesterday?");
      expect(r.memories.length).toBeGreaterThan(0);
      expect(r.memories.every((m) => m.date === "2026-03-24")).toBe(true);
      expect(bulletsOf(r.context).sort()).toEqual([24, 24, 24]);
      // The day's session comes after its log.
      expect(r.context).toContain("release notes for the uploader");
      expect(r.context.indexOf("(day 24, item 0)")).toBeLessThan(r.context.indexOf("release notes"));
      expect(r.context).not.toContain("deploys on Tuesdays");
    });

    it("keeps to the request's sources and paths: a window asked of files only shows no session", async () => {
      const base = { query: "what did I do yesterday?", referenceDate: "2026-03-25", record: false };
      const files = await recall(index().searcher, index().store, { ...base, sources: ["files"] });
      expect(bulletsOf(files.context).sort()).toEqual([24, 24, 24]);
      expect(files.context).not.toContain("release notes for the uploader");
      const noLog = await recall(index().searcher, index().store, {
        ...base,
        excludePath: (p) => p === "memory/2026-03-24.md",
      });
      expect(noLog.context).not.toContain("(day 24, item");
    });

    it("answers 'what happened last week?' with every day of the week, oldest first", async () => {
      // 2026-03-25 is a Wednesday: last week is Monday 16 – Sunday 22.
      const r = await ask("what happened last week?");
      const days = bulletsOf(r.context);
      expect(new Set(days)).toEqual(new Set([16, 17, 18, 19, 20, 21, 22]));
      expect(days).toEqual([...days].sort((a, b) => a - b));
      expect(r.context).toContain("batch the Lidl invoices nightly");
    });

    it("puts the topic within the window first, before the topic's other days", async () => {
      const r = await ask("what did we decide about the Lidl invoices last week?");
      expect(r.memories[0]!.date).toBe("2026-03-17");
      expect(r.context).toContain("batch the Lidl invoices nightly");
      const other = r.context.indexOf("encoding fixed with iconv");
      if (other >= 0) expect(r.context.indexOf("batch the Lidl invoices")).toBeLessThan(other);
    });

    it("falls back to ranking when nothing in the window holds the topic", async () => {
      const r = await ask("what was wrong with the Lidl invoices yesterday?");
      expect(r.context).toContain("Lidl invoices");
    });

    it("spreads a window too big for the budget over its days, in time order", async () => {
      const r = await ask("what did I do in March?", "2026-03-29", 400);
      const days = bulletsOf(r.context);
      expect(r.tokens_used).toBeLessThanOrEqual(400);
      expect(days.length).toBeGreaterThan(2);
      expect(days).toEqual([...days].sort((a, b) => a - b));
      // Not just the first days of the month: the spread reaches past its first week.
      expect(Math.max(...days) - Math.min(...days)).toBeGreaterThan(7);
    });

    it("answers a time question about a day nothing was written on with nothing, whatever its frame words", async () => {
      // 2026-04-20 is a Monday: last Friday (April 17) has no log; "work" is in a few notes ("after work").
      for (const query of ["what did I work on last Friday?", "what was I working on last Friday?"]) {
        const r = await ask(query, "2026-04-20");
        expect(r.context, query).toBe("");
      }
      const yesterday = await ask("what was I working on yesterday?");
      expect(bulletsOf(yesterday.context).sort()).toEqual([24, 24, 24]);
    });

    it("answers as of the reference day, not the wall clock", async () => {
      const r = await ask("what did I do yesterday?", "2026-03-06");
      expect(new Set(bulletsOf(r.context))).toEqual(new Set([5]));
      expect(r.context).toContain("encoding fixed with iconv");
    });
  });
}
