/**
 * A memory naming the ticket a relevant memory names is about the same thing (search/ticket-keys.ts):
 * "what was the incident about?" finds the postmortem line by its word and, by INC-4821, the day the
 * incident was investigated. Found by trying the daemon: that day was dropped as "sharing nothing
 * with the prompt". A host the relevant memory names is no such key: the curated line naming the old
 * host stays out. Real files, a real index, the built-in model and keyword-only.
 */
import { describe, expect, it } from "vitest";
import { recall } from "../src/search/recall.js";
import { ticketKeysOf } from "../src/search/ticket-keys.js";
import { suiteIndex } from "./helpers/suite-index.js";

const daily = (date: string, lines: string[]) => `# ${date}\n\n${lines.map((l) => `- ${l}`).join("\n")}\n`;

const FILES = {
  "MEMORY.md": "# Memory\n\n- The staging database runs on db-stage-2.internal.\n",
  "memory/2026-12-01.md": daily("2026-12-01", [
    "Investigated INC-4821: checkout latency spikes after the Redis upgrade. Rolled back to Redis 7.0.",
  ]),
  "memory/2026-12-04.md": daily("2026-12-04", [
    "Staging database moved to db-stage-3.internal (db-stage-2 decommissioned).",
    "Wrote the postmortem for INC-4821 and shared it in #eng-incidents.",
  ]),
  "memory/2026-12-06.md": daily("2026-12-06", ["Booked train tickets to Lyon for the 20th."]),
};

it("ticket keys are capitals, a dash and digits; hosts and versions are none", () => {
  expect([...ticketKeysOf("INC-4821, OPS-12 and CVE-2024-3094 on db-stage-2 (hx-301, Node 22)")]).toEqual([
    "INC-4821",
    "OPS-12",
    "CVE-2024-3094",
  ]);
});

for (const mode of ["hybrid", "keyword"] as const) {
  describe(`recall of what a ticket is about (${mode})`, () => {
    const index = suiteIndex(FILES, mode);

    it("brings the day the incident was investigated beside the postmortem, not the stale host", async () => {
      const r = await recall(index().searcher, index().store, {
        query: "what was the incident about?",
        record: false,
        referenceDate: "2026-12-07",
        explain: true,
      });
      expect(r.context).toContain("Wrote the postmortem for INC-4821");
      expect(r.context).not.toContain("runs on db-stage-2.internal");
      expect(r.context).not.toContain("train tickets");
      // Keyword-only, a memory holding no word of the prompt is no candidate: no search finds that day.
      if (mode === "keyword") return;
      expect(r.context).toContain("checkout latency spikes after the Redis upgrade");
      const why = r.explain!.candidates.find((c) => c.path === "memory/2026-12-01.md");
      expect(why?.reason).toMatch(/names INC-4821 as a relevant memory does/);
    });
  });
}
