/**
 * `referenceDate` makes a recall "as of" that day: recency counts from it, not from the wall clock.
 * One real index (keyword-only, so the ranking is deterministic) recalled as of two dates.
 */
import { describe, expect, it } from "vitest";
import { recall } from "../src/search/recall.js";
import { indexesPerTest } from "./helpers/workspace.js";

const indexOf = indexesPerTest();

const FILLER = [
  "Reviewed the refund dry-run pull request with Dana.",
  "Sam baked sourdough bread for the team lunch.",
  "The staging database was refreshed from production.",
  "Long meeting about quarterly goals; nothing decided.",
];

function daily(date: string, lines: string[]): string {
  return `# ${date}\n\n${lines.map((l) => `- ${l}`).join("\n")}\n`;
}

describe("recall as of a referenceDate", () => {
  it("ranks the memory nearest the reference date first: the same workspace as of two dates", async () => {
    const t = await indexOf({
      "memory/2026-01-10.md": daily("2026-01-10", ["The build cache lives on host alpha-1.", FILLER[0]!]),
      "memory/2026-03-02.md": daily("2026-03-02", [FILLER[1]!, FILLER[2]!]),
      "memory/2026-06-10.md": daily("2026-06-10", ["The build cache lives on host beta-2.", FILLER[3]!]),
    });
    const ask = (referenceDate: string) =>
      recall(t.searcher, t.store, { query: "Where does the build cache live?", referenceDate, record: false });
    const january = await ask("2026-01-12");
    const june = await ask("2026-06-12");
    // The two lines read alike: the other may be left out as a near duplicate, never put first.
    expect(january.memories[0]!.date).toBe("2026-01-10");
    expect(june.memories[0]!.date).toBe("2026-06-10");
    expect(january.context).toContain("alpha-1");
    expect(june.context).toContain("beta-2");
  });
});
