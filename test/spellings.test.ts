/**
 * Names spelled with letters FTS5 does not fold (search/spellings.ts): "tromso" typed on an ASCII
 * keyboard finds the note about Tromsø, in search and in recall, and "Tromsø" finds a note that wrote
 * "Tromso". Real files, a real index, keyword-only and with the built-in model.
 */
import { describe, expect, it } from "vitest";
import { recall } from "../src/search/recall.js";
import { beginsWord, foldLetters, otherSpellings } from "../src/search/spellings.js";
import { suiteIndex } from "./helpers/suite-index.js";

function workspace(): Record<string, string> {
  const out: Record<string, string> = {
    "memory/2026-09-08.md": "# 2026-09-08\n\n- 10:12 Booked the northern lights trip to Tromsø for March.\n",
    "memory/2026-09-12.md": "# 2026-09-12\n\n- 15:40 Ania sent the Łódź office floor plan.\n",
    "memory/2026-09-15.md": "# 2026-09-15\n\n- 09:05 The Malmo team moved their standup to 9:30.\n",
    "MEMORY.md": "# Memory\n\n- billing-service runs on PostgreSQL 16 with pgvector.\n- Prefers short pull requests.\n",
  };
  const chores = ["Reviewed the invoices pull request.", "Rotated the staging credentials.", "Wrote the goals draft."];
  for (let d = 0; d < 30; d++) {
    const date = new Date(Date.UTC(2026, 9, 1 + d)).toISOString().slice(0, 10);
    out[`memory/${date}.md`] =
      `# ${date}\n\n- 11:00 ${chores[d % 3]}\n- 16:00 Checked the trip budget sheet (entry ${d}).\n`;
  }
  return out;
}

describe("letters FTS5 does not fold", () => {
  it("spells a word both ways", () => {
    expect(foldLetters("Tromsø")).toBe("tromso");
    expect(foldLetters("Łódź")).toBe("lodz");
    expect(foldLetters("Straße")).toBe("strasse");
    expect(otherSpellings("tromso")).toEqual(expect.arrayContaining(["tromsø", "trømso"]));
    expect(otherSpellings("malmö")).toEqual([]); // FTS5 folds ö itself
    expect(otherSpellings("tromsø")).toEqual(["tromso"]);
    expect(otherSpellings("__proto__")).toEqual([]);
    expect(beginsWord("postgres", "postgresql")).toBe(true);
    expect(beginsWord("post", "postgresql")).toBe(false); // too short to stand for a word
    expect(beginsWord("const", "constant")).toBe(false); // JavaScript's const is no constant
    expect(beginsWord("elastic", "elasticsearch")).toBe(false); // too far
  });

  for (const mode of ["keyword", "hybrid"] as const) {
    describe(mode, () => {
      const index = suiteIndex(workspace(), mode);

      it("finds the note about Tromsø and Łódź when typed in ASCII, first in search and in recall", async () => {
        for (const [query, path] of [
          ["tromso", "memory/2026-09-08.md"],
          ["when is the tromso trip?", "memory/2026-09-08.md"],
          ["lodz office floor plan", "memory/2026-09-12.md"],
        ] as const) {
          const res = await index().searcher.search({ query, limit: 6 });
          expect(res.results[0]?.path, query).toBe(path);
          const r = await recall(index().searcher, index().store, {
            query,
            record: false,
            referenceDate: "2026-11-01",
          });
          expect(r.memories[0]?.path, query).toBe(path);
        }
      });

      it("finds the note that wrote a word in full when it is typed short ('postgres' for PostgreSQL)", async () => {
        const query = "which postgres version do we use?";
        const res = await index().searcher.search({ query, limit: 6 });
        expect(res.results[0]?.path).toBe("MEMORY.md");
        const r = await recall(index().searcher, index().store, { query, record: false });
        expect(r.context).toContain("PostgreSQL 16");
      });

      it("finds a note that wrote a name in ASCII when asked with its letters", async () => {
        const res = await index().searcher.search({ query: "Malmø", limit: 6 });
        expect(res.results[0]?.path).toBe("memory/2026-09-15.md");
        const r = await recall(index().searcher, index().store, {
          query: "anything from the Malmø team?",
          record: false,
        });
        expect(r.memories[0]?.path).toBe("memory/2026-09-15.md");
      });
    });
  }
});
