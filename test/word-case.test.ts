/**
 * One-word "names" that are words (index/repos/word-case.ts): a capitalised sentence opener the
 * readers take for a name ("Tournaments ran late.") is no entity when the workspace writes it in
 * lowercase elsewhere, while a real one-word name that is never written in lowercase ("Ines") stays
 * one; the verdicts are kept until a file write. Real files, a real index (keyword-only).
 */
import { afterEach, describe, expect, it } from "vitest";
import { entityLeg, promptEntities } from "../src/search/entity-leg.js";
import { topEntities } from "../src/search/entity-names.js";
import { caseCounts, caseCountsWithin } from "../src/index/repos/word-case.js";
import { mulberry32 } from "../src/util/prng.js";
import { openTestIndex, tempDir, writeFiles, type TestIndex } from "./helpers/workspace.js";

const open: TestIndex[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

function files(): Record<string, string> {
  const out: Record<string, string> = {
    "memory/2026-03-02.md": "# 2026-03-02\n\n- Tournaments ran late on Saturday. Ines reports to Greta Lind.\n",
    "memory/2026-03-03.md": "# 2026-03-03\n\n- Tournaments need a referee. Ines owns the billing export.\n",
    "memory/2026-03-04.md": "# 2026-03-04\n\n- Mentor sessions start in April. Ines moved the standup.\n",
  };
  for (let i = 0; i < 12; i++) {
    const d = new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10);
    out[`memory/${d}.md`] =
      `# ${d}\n\n- We played two tournaments at our club, and tournaments were long (entry ${i}).\n`;
  }
  return out;
}

async function indexed(root = tempDir()): Promise<TestIndex> {
  writeFiles(root, files());
  const t = openTestIndex(root, null);
  open.push(t);
  await t.indexer.sync();
  return t;
}

const names = (t: TestIndex, q: string) => promptEntities(t.store, q, 1).found.map((e) => e.name);

describe("one-word names that are words", () => {
  it("takes a sentence-opening word the workspace writes in lowercase for a word, not an entity", async () => {
    const t = await indexed();
    // The readers did take it for a name (it opens two sentences) …
    expect(t.store.entities.counts(["tournaments"], 100).map((e) => e.name)).toEqual(["Tournaments"]);
    // … but the workspace writes it in lowercase far more often: no entity of the prompt, no link.
    expect(names(t, "How did the tournaments go?")).toEqual([]);
    expect(entityLeg(t.store, "How did the tournaments go?").prompt).toEqual([]);
    expect(topEntities(t.store.entities, 10).some((e) => e.name === "Tournaments")).toBe(false);
  });

  it("keeps a one-word name that is never written in lowercase", async () => {
    const t = await indexed();
    expect(names(t, "Who does Ines report to?")).toEqual(["Ines"]);
    expect(topEntities(t.store.entities, 10).map((e) => e.name)).toContain("Ines");
    // A capitalised opener never written in lowercase stays an entity too.
    expect(names(t, "When do mentor sessions start?")).toEqual(["Mentor"]);
  });

  it("asks again after a file write: a word newly written in lowercase is no longer an entity", async () => {
    const root = tempDir();
    const t = await indexed(root);
    expect(names(t, "When do mentor sessions start?")).toEqual(["Mentor"]);
    const before = t.store.entities.chunkCount();
    writeFiles(root, {
      "memory/2026-03-05.md":
        "# 2026-03-05\n\n- Asked a mentor about our plan; every mentor gets a mentee, and a mentor meets them weekly.\n",
    });
    await t.indexer.sync();
    expect(t.store.entities.chunkCount()).toBe(before + 1);
    expect(names(t, "When do mentor sessions start?")).toEqual([]);
  });

  it("counts a word's lowercase and capitalised uses as the Unicode expression does, in any text", () => {
    const byExpression = (texts: string[], key: string) => {
      let lower = 0;
      let upper = 0;
      const re = new RegExp(`(?<![\\p{L}\\p{N}])${key}(?![\\p{L}\\p{N}])`, "giu");
      for (const text of texts)
        for (const m of text.matchAll(re)) {
          const f = m[0][0]!;
          if (f === f.toLowerCase() && f !== f.toUpperCase()) lower++;
          else upper++;
        }
      return { lower, upper };
    };
    const rnd = mulberry32(7);
    const pieces = [
      "ines",
      "Ines",
      "INES",
      "inesines",
      "xines",
      "ines2",
      "_ines_",
      "Ïnes",
      "inés",
      "\u212Aines",
      "\u0130nes",
      "\u0131nes",
      "\u212Anes",
      "ine\u017f",
      "\u{1D400}",
      "\u{1F600}",
      "\ud835",
      "\u0660",
      "中",
      " ",
      ". ",
      "-",
      "é",
      "9",
    ];
    for (let n = 0; n < 400; n++) {
      const texts = Array.from({ length: 3 }, () =>
        Array.from({ length: 12 }, () => pieces[Math.floor(rnd() * pieces.length)]).join(rnd() < 0.5 ? " " : ""),
      );
      for (const key of ["ines", "nes", "kines", "ï", "s", "i"])
        expect(caseCounts(texts, key), `${key}: ${texts.join(" | ")}`).toEqual(byExpression(texts, key));
    }
  });
});

describe("a name that is also a common word", () => {
  // "Grace" is one of the most frequent English words, so it was never taken for an entity; a
  // workspace that writes it capitalised within sentences names someone with it.
  function withGrace(): Record<string, string> {
    const out: Record<string, string> = {};
    // Named in fewer than 8% of the chunks (a name in more says nothing about which memory is meant).
    for (let i = 0; i < 160; i++) {
      const d = new Date(Date.UTC(2026, 2, 1 + i)).toISOString().slice(0, 10);
      if (i >= 10) {
        out[`memory/${d}.md`] = `# ${d}\n\n- Reviewed the export job (run ${i}).\n`;
        continue;
      }
      const lines = [
        `Reviewed the export job (run ${i}).`,
        i % 2 === 0 ? "Paired with Grace on the billing export." : "Lunch with Grace and Ines.",
      ];
      if (i === 3) lines.push("The grace period for invoices is 14 days.");
      if (i === 5) lines.push("Grace moved to Rotterdam.");
      out[`memory/${d}.md`] = `# ${d}\n\n${lines.map((l) => `- ${l}`).join("\n")}\n`;
    }
    return out;
  }

  it("is a prompt's entity where the workspace writes it as a name, not where it writes the word", () => {
    const root = tempDir();
    writeFiles(root, withGrace());
    const t = openTestIndex(root, null);
    open.push(t);
    return t.indexer.sync().then(() => {
      expect(promptEntities(t.store, "Which city does Grace live in now?").found.map((e) => e.entity)).toContain(
        "grace",
      );
      // "Session" opens sentences and is written in lowercase within them: a word.
      expect(caseCountsWithin(["Session ran late, then the session ended.", "A long session."], "session")).toEqual({
        lower: 2,
        upper: 1,
        upperWithin: 0,
      });
      expect(
        caseCountsWithin(["- 09:00 Grace left.", "User: Grace is in.", "with Grace, and Grace's PR"], "grace"),
      ).toEqual({
        lower: 0,
        upper: 4,
        upperWithin: 2,
      });
    });
  });
});
