/**
 * A question about a day finds the memories that name that day, whatever their own date: a plan
 * written on the 6th "for the 20th", "the demo is tomorrow" written today. Found by trying the
 * daemon: "what are my plans for the 20th?" got four unrelated memories and not the booking (the
 * 20th was read as the last one, and only memories dated then counted). Real files, a real index,
 * the built-in model and keyword-only.
 */
import { describe, expect, it } from "vitest";
import { recall } from "../src/search/recall.js";
import { dayNamer, promptDays } from "../src/search/date-mentions.js";
import { suiteIndex } from "./helpers/suite-index.js";

const daily = (date: string, lines: string[]) => `# ${date}\n\n${lines.map((l) => `- ${l}`).join("\n")}\n`;

const FILES = {
  "MEMORY.md": "# Memory\n\n- Partner: Sofia. Lives in Lyon.\n- Prefers pnpm over npm for new projects.\n",
  "memory/2026-12-01.md": daily("2026-12-01", [
    "Investigated INC-4821: checkout latency spikes after the Redis upgrade.",
    "Lunch with Marco about the Q1 roadmap.",
  ]),
  "memory/2026-12-04.md": daily("2026-12-04", ["Wrote the postmortem for INC-4821.", "Standup moved to 9:30."]),
  "memory/2026-12-06.md": daily("2026-12-06", [
    "Fixed the flaky login test in web-app.",
    "Booked train tickets to Lyon for the 20th to visit Sofia's parents.",
  ]),
  "memory/2026-12-07.md": daily("2026-12-07", ["The Acme demo is tomorrow at 10:00, slides still missing."]),
};

describe("the days a text names", () => {
  it("reads the prompt's day both ways and a memory's from its own date", () => {
    expect([...promptDays("what are my plans for the 20th?", "2026-12-07")].sort()).toEqual([
      "2026-11-20",
      "2026-12-20",
    ]);
    expect([...promptDays("what did I do last week?", "2026-12-07")]).toEqual([]);
    const names = dayNamer("what's on tomorrow?", "2026-12-07")!;
    expect(names("The Acme demo is tomorrow at 10:00", "2026-12-07")).toBe(true);
    expect(names("The Acme demo is tomorrow at 10:00", "2026-12-01")).toBe(false);
    expect(names("Tickets for Dec 8 are booked", undefined)).toBe(true);
    expect(dayNamer("what did I do last week?", "2026-12-07")).toBeNull();
  });
});

for (const mode of ["hybrid", "keyword"] as const) {
  describe(`recall of a day a memory names (${mode})`, () => {
    const index = suiteIndex(FILES, mode);

    const ask = (query: string) =>
      recall(index().searcher, index().store, { query, record: false, referenceDate: "2026-12-07", explain: true });

    it("a plan for a day of the month is recalled first, by ordinal or by date", async () => {
      // Keyword-only, "Dec 20" shares no word with "for the 20th": no search finds that memory.
      const questions = [
        "what are my plans for the 20th?",
        ...(mode === "hybrid" ? ["what's happening on Dec 20?"] : []),
      ];
      for (const q of questions) {
        const r = await ask(q);
        expect(r.memories[0]?.text, q).toContain("Booked train tickets to Lyon for the 20th");
        const why = r.explain!.candidates.find((c) => c.path === "memory/2026-12-06.md");
        expect(why?.reason, q).toMatch(/names a day the prompt asks about/);
      }
    });

    it("what is on tomorrow: today's note that says tomorrow", async () => {
      const r = await ask("what's on tomorrow?");
      expect(r.context).toContain("The Acme demo is tomorrow");
      expect(r.context).not.toContain("Booked train tickets");
    });

    it("a day nothing names brings nothing of the other days", async () => {
      const r = await ask("what did I do on the 3rd?");
      expect(r.context).not.toContain("the 20th");
      expect(r.context).not.toContain("tomorrow");
    });
  });
}
