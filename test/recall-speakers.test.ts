/**
 * A recalled conversation shows what the person the prompt asks about said (search/recall-speakers.ts):
 * "I just signed up for a pottery class" answers a question about Melanie because Melanie says it,
 * and the other speaker's turns only take the budget. Real files, a real index (keyword-only).
 */
import { describe, expect, it } from "vitest";
import { recall } from "../src/search/recall.js";
import { promptNames, speakerOf } from "../src/search/recall-speakers.js";
import { indexesPerTest } from "./helpers/workspace.js";

const indexOf = indexesPerTest();

const chat = (date: string, turns: string[]) => `# ${date}\n\n## Chat — Caroline and Melanie\n\n${turns.join("\n")}\n`;

const files = {
  "memory/2023-07-03.md": chat("2023-07-03", [
    "Caroline: The pride parade last week was so powerful, everyone was happy.",
    "Melanie: Wow, Caroline! I just signed up for a pottery class yesterday, it's like therapy for me.",
    "Caroline: Wow, Melanie! I'm getting into the piano lately, what made you try pottery?",
    "Melanie: I'm a big fan of pottery - the creativity is awesome and it's so calming.",
    "Caroline: I've been reading about adoption agencies for my family plans.",
    "Melanie: Sounds great! We went camping with the kids last weekend.",
  ]),
  "memory/2023-07-20.md": chat("2023-07-20", [
    "Caroline: Hey Melanie! My counseling course starts next month.",
    "Melanie: Hey Caroline! Congrats on the course.",
    "Caroline: Thanks! The course is about mental health support.",
    "Melanie: You'll be great at it.",
  ]),
};

describe("recall of a conversation about one of its speakers", () => {
  it("shows the named speaker's turns, and the other's only when they hold the prompt's words", async () => {
    const t = await indexOf(files);
    const out = await recall(t.searcher, t.store, {
      query: "What pottery things does Melanie do?",
      record: false,
      budgetTokens: 2000,
    });
    expect(out.context).toContain("Melanie: Wow, Caroline! I just signed up for a pottery class");
    expect(out.context).toContain("We went camping with the kids");
    // Caroline's turn holding "pottery" stays (an answer may follow a question); her others go.
    expect(out.context).toContain("what made you try pottery?");
    expect(out.context).not.toContain("adoption agencies");
    expect(out.context).not.toContain("pride parade");
  });

  it("shows both speakers when the prompt names both", async () => {
    const t = await indexOf(files);
    const out = await recall(t.searcher, t.store, {
      query: "What pottery things did Caroline and Melanie talk about?",
      record: false,
      budgetTokens: 2000,
    });
    expect(out.context).toContain("adoption agencies");
    expect(out.context).toContain("I just signed up for a pottery class");
  });

  it("reads speakers as chats, daily logs and transcripts write them, and names as prompts write them", () => {
    expect(speakerOf("[D1:3] Caroline: I went to a support group")).toBe("Caroline");
    expect(speakerOf("User: [D1:3] Caroline: hi")).toBe("Caroline");
    expect(speakerOf("- 10:30 Alice Chen: shipped the fix")).toBe("Alice Chen");
    expect(speakerOf("The plan: ship on Friday")).toBeNull();
    expect([...promptNames("What did Melanie's kids like?")]).toEqual(["Melanie"]);
    expect([...promptNames("What do Jon and Gina both have in common?")]).toEqual(["Jon", "Gina"]);
    expect([...promptNames("Which city did they visit?")]).toEqual([]);
  });
});
