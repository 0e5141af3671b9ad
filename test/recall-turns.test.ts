/**
 * A question gathering a speaker's doings over a conversation ("what books has Tim read?") is
 * answered by that speaker's turns on many days, most of which share no word with it
 * (search/recall-turns.ts): recall lists the speaker's turns one by one, not only the chunks that
 * hold the question's words. Real files, a real index (keyword-only).
 */
import { describe, expect, it } from "vitest";
import { recall } from "../src/search/recall.js";
import { asksForMany } from "../src/search/prompt-intent.js";
import { indexesPerTest } from "./helpers/workspace.js";

const indexOf = indexesPerTest();

const chat = (date: string, session: number, turns: string[]) =>
  `# ${date}\n\n## Session ${session} — John and Tim\n\n${turns.map((t, i) => `[D${session}:${i + 1}] ${t}`).join("\n")}\n`;

const GAME =
  "John: Last night's game was wild, we were down ten points at the half and the coach changed the whole rotation, then our point guard hit three in a row and the crowd went crazy.";
const TRAINING =
  "John: Training this week is brutal: two sessions a day, film study in the evening, and the strength coach has us doing sprints on the hill behind the gym until we drop.";

const files = {
  "memory/2023-01-05.md": chat("2023-01-05", 1, [
    GAME,
    "Tim: I read a great fantasy book last week, it kept me up all night.",
    TRAINING,
    "Tim: Good luck with the season, John!",
  ]),
  "memory/2023-02-10.md": chat("2023-02-10", 2, [
    GAME,
    "Tim: I just finished The Name of the Wind, what a story!",
    TRAINING,
    "Tim: Hope your knee holds up.",
  ]),
  "memory/2023-03-15.md": chat("2023-03-15", 3, [
    TRAINING,
    "Tim: On my flight to London I started Game of Thrones, it is huge.",
    GAME,
    "Tim: Say hi to your team for me.",
  ]),
};

describe("recall of a speaker's doings over a conversation", () => {
  it("shows the speaker's turns of every session, those sharing no word with the question too", async () => {
    const t = await indexOf(files);
    const out = await recall(t.searcher, t.store, {
      query: "What books has Tim read?",
      record: false,
      budgetTokens: 2000,
    });
    expect(out.context).toContain("I read a great fantasy book");
    // Neither names a book or reading: the old recall dropped their chunks (only "Tim" matches).
    expect(out.context).toContain("The Name of the Wind");
    expect(out.context).toContain("Game of Thrones");
  });

  it("shows both people's turns for what two of them share, though neither shares a word with the question", async () => {
    const t = await indexOf({
      ...files,
      "memory/2023-04-02.md": chat("2023-04-02", 4, [
        GAME,
        "Tim: I volunteered at the animal shelter on Sunday, walking the old dogs.",
        TRAINING,
        "Tim: Volunteering is the best part of my week.",
      ]),
      "memory/2023-05-09.md": chat("2023-05-09", 5, [
        "John: Our team spent Saturday at the animal shelter, I walked three dogs.",
        "Tim: That's so kind, John!",
        TRAINING,
        "Tim: Good luck at the final.",
      ]),
    });
    const out = await recall(t.searcher, t.store, {
      query: "What cause do John and Tim both support?",
      record: false,
      budgetTokens: 2000,
    });
    expect(out.context).toContain("I volunteered at the animal shelter");
    expect(out.context).toContain("Our team spent Saturday at the animal shelter");
  });

  it("keeps the relevance gate: a question no memory answers stays empty", async () => {
    const t = await indexOf(files);
    const out = await recall(t.searcher, t.store, {
      query: "Which databases has the backend team migrated?",
      record: false,
      budgetTokens: 2000,
    });
    expect(out.context).toBe("");
  });

  it("tells a question asking for several things from one asking for one", () => {
    expect(asksForMany("What activities does Melanie partake in?")).toBe(true);
    expect(asksForMany("Which cities has Jon visited?")).toBe(true);
    expect(asksForMany("What kinds of books does Tim like?")).toBe(true);
    expect(asksForMany("How many times has John injured his ankle?")).toBe(true);
    expect(asksForMany("What do Jon and Gina both have in common?")).toBe(true);
    expect(asksForMany("Which city have both Jean and John visited?")).toBe(true);
    expect(asksForMany("What did Caroline research?")).toBe(false);
    expect(asksForMany("What is Caroline's identity?")).toBe(false);
    expect(asksForMany("What does Melanie do to destress?")).toBe(false);
  });
});
