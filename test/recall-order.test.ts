/**
 * A recalled block about someone or something puts what is said of it now first
 * (search/recall-order.ts): a change the linker cannot tie to the older statement ("has moved to
 * Rotterdam" never names Ghent) still comes above it. Real files, a real index (keyword-only).
 */
import { describe, expect, it } from "vitest";
import { recall } from "../src/search/recall.js";
import { newestFirstAbout, newestFirstFor, SUBJECT_SHARE } from "../src/search/recall-order.js";
import { topicWords, type PromptWord } from "../src/search/relevance.js";
import { entityLeg, promptEntities } from "../src/search/entity-leg.js";
import { indexesPerTest } from "./helpers/workspace.js";

const indexOf = indexesPerTest();

const daily = (date: string, lines: string[]) => `# ${date}\n\n${lines.map((l) => `- ${l}`).join("\n")}\n`;

/** Filler days so that no one name is what the whole workspace is about. */
function filler(): Record<string, string> {
  const out: Record<string, string> = {};
  const topics = ["invoice export", "search ranking", "dark mode", "billing emails", "the SSO login", "push alerts"];
  for (let d = 1; d <= 24; d++) {
    const date = `2026-08-${String(d).padStart(2, "0")}`;
    out[`memory/${date}.md`] = daily(date, [
      `10:0${d % 10} Reviewed the ${topics[d % topics.length]} pull request.`,
      `14:1${d % 10} Load test for ${topics[(d + 1) % topics.length]}: ${1000 + d * 37} req/s.`,
    ]);
  }
  return out;
}

function firstHolding(context: string, values: string[]): string | undefined {
  return context
    .split(/\n| ⏎ /)
    .find((line) => values.some((v) => line.includes(v)))
    ?.match(new RegExp(values.join("|")))?.[0];
}

describe("recall order for a prompt about someone", () => {
  it("shows the newer statement about the person first, though the older one matches the prompt's words better", async () => {
    const t = await indexOf({
      ...filler(),
      "memory/2026-09-27.md": daily("2026-09-27", ["11:00 Ines lives in Ghent, near the old harbour."]),
      "memory/2026-10-20.md": daily("2026-10-20", ["08:57 Ines says it's pouring with rain in Ghent today."]),
      "memory/2026-11-03.md": daily("2026-11-03", [
        "14:46 Ines has moved to Rotterdam; new address is in the HR system.",
      ]),
    });
    const out = await recall(t.searcher, t.store, {
      query: "Which city does Ines live in now?",
      record: false,
      referenceDate: "2026-11-24",
    });
    expect(out.context).toContain("Rotterdam");
    expect(firstHolding(out.context, ["Rotterdam", "Ghent"])).toBe("Rotterdam");
  });

  it("puts what is said of the person on the asked topic first, above newer passing mentions of them", async () => {
    const t = await indexOf({
      ...filler(),
      "MEMORY.md": "# Memory\n\n- Leo lives in Warsaw.\n- Hiro lives in Berlin.\n",
      "memory/2026-09-10.md": daily("2026-09-10", ["09:12 Leo moved from Warsaw to Dublin."]),
      "memory/2026-10-05.md": daily("2026-10-05", ["21:30 Leo is not in Dublin anymore, lives in Milan these days."]),
      "memory/2026-10-11.md": daily("2026-10-11", ["08:11 Birthday present for Leo: a board game."]),
      "memory/2026-11-05.md": daily("2026-11-05", ["12:54 Merged Leo's fix for the memory leak in the worker."]),
      "memory/2026-11-11.md": daily("2026-11-11", [
        "18:17 Demo of data retention went well; Leo asked about search ranking.",
      ]),
    });
    for (const query of ["Where does Leo live?", "where is Leo living now?", "what town is Leo in?"]) {
      const out = await recall(t.searcher, t.store, { query, record: false, referenceDate: "2026-11-30" });
      const lines = out.context.split("\n").filter((l) => l.startsWith("- "));
      expect(lines[0], `${query}\n${out.context}`).toContain("Milan");
      // The other mentions of Leo are still there, newest first, after it.
      const leak = lines.findIndex((l) => l.includes("memory leak"));
      const board = lines.findIndex((l) => l.includes("board game"));
      if (leak >= 0 && board >= 0) expect(leak).toBeLessThan(board);
    }
  });

  it("counts the prompt's entities for the order as if alone, after the search counted them to its lower share", async () => {
    const files = filler();
    // Mara is named in half the days (what the workspace is about: not reordered), Ines in three of 27.
    Object.keys(files).forEach((path, i) => {
      if (i % 2 === 0) files[path] = files[path]!.replace("Reviewed", "Mara reviewed");
    });
    const t = await indexOf({
      ...files,
      "memory/2026-09-27.md": daily("2026-09-27", ["11:00 Ines lives in Ghent, near the old harbour."]),
      "memory/2026-10-20.md": daily("2026-10-20", ["08:57 Ines says it's pouring with rain in Ghent today."]),
      "memory/2026-11-03.md": daily("2026-11-03", ["14:46 Ines has moved to Rotterdam."]),
    });
    const query = "Did Mara and Ines talk about Ghent?";
    const alone = promptEntities(t.store, query, SUBJECT_SHARE).found.map((e) => e.entity);
    expect(alone).toContain("ines");
    expect(alone).not.toContain("mara");
    const snap = t.store.readSnapshot();
    const leg = entityLeg(t.store, query, snap).prompt;
    expect(leg).not.toContain("Ines"); // both past the search's share
    expect(leg).not.toContain("Mara");
    expect(promptEntities(t.store, query, SUBJECT_SHARE, snap).found.map((e) => e.entity)).toEqual(alone);
  });

  it("keeps the places of memories that do not name the entity", () => {
    const items = [
      { text: "Ines lives in Ghent", date: "2026-09-27" },
      { text: "Reviewed the search ranking pull request", date: "2026-12-01" },
      { text: "Ines has moved to Rotterdam", date: "2026-11-03" },
      { text: "Ines prefers tea" },
    ];
    const out = newestFirstAbout(items, ["ines"], (i) => i);
    expect(out.map((i) => i.text)).toEqual([
      "Ines has moved to Rotterdam",
      "Reviewed the search ranking pull request",
      "Ines lives in Ghent",
      "Ines prefers tea",
    ]);
    // Whole words only: "nes" is not Ines.
    expect(newestFirstAbout(items.slice(0, 2), ["nes"], (i) => i)).toEqual(items.slice(0, 2));
  });
});

describe("one word of the prompt, and a later change", () => {
  const word = (w: string, frame = false): PromptWord => ({
    ...topicWords(w)[0]!,
    df: 3,
    idf: 2,
    weight: 2,
    frame,
    rare: false,
    subject: false,
  });
  type Item = { text: string; date?: string };
  const view = (t: Item) => ({ ...t, chunkWords: t.text.toLowerCase().match(/[a-z]+/g) ?? [] });
  const order = (query: string, words: PromptWord[], items: Item[]) =>
    newestFirstFor(items, { query, entities: [], words }, view).map((t) => t.text);

  it("puts the newest first only when it says the thing changed, for a question for a value", () => {
    const curated = { text: "My manager is Dana Whitfield." };
    const changed = { text: "my new manager is Oksana Petrenko.", date: "2026-09-21" };
    const mention = { text: "Skipped the manager sync, Dana was out.", date: "2026-09-21" };
    const manager = [word("manager", true)];
    expect(order("who is my manager?", manager, [curated, changed])[0]).toBe(changed.text);
    expect(order("who is my manager?", manager, [curated, mention])[0]).toBe(curated.text);
    // No question for a value, or a question about then: search's order.
    expect(order("manager", manager, [curated, changed])[0]).toBe(curated.text);
    expect(order("who was my manager before?", manager, [curated, changed])[0]).toBe(curated.text);
  });
});
