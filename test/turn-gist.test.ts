/**
 * A turn listed for a question gathering someone's doings shows what it says of its speaker
 * (search/turn-gist.ts): the short questions put to the other speaker and the short reactions to
 * them are left out ("…"), so the budget holds more of that person's turns. Real files, a real
 * index (keyword-only) for the recall; the gist itself on plain strings.
 */
import { describe, expect, it } from "vitest";
import { recall } from "../src/search/recall.js";
import { contentStems } from "../src/search/excerpt.js";
import { turnGist } from "../src/search/turn-gist.js";
import { indexesPerTest } from "./helpers/workspace.js";

const indexOf = indexesPerTest();
const stemsOf = (q: string) => new Set(contentStems(q));

describe("the gist of a conversation turn", () => {
  const q = stemsOf("What activities does Melanie partake in?");

  it("leaves out greetings, reactions and short questions to the other speaker, keeps what the speaker says of herself", () => {
    expect(
      turnGist(
        "[D1:2] Melanie: Hey Caroline! Good to see you! I'm swamped with the kids & work. What's up with you? Anything new?",
        q,
      ),
    ).toBe("[D1:2] Melanie: … I'm swamped with the kids & work. …");
    expect(turnGist("[D5:6] Melanie: Wow, that's so cool, Caroline! We went camping at the beach.", q)).toBe(
      "[D5:6] Melanie: … We went camping at the beach.",
    );
  });

  it("keeps a terse statement, a photo's caption, a longer question and one holding the question's words", () => {
    const terse = "[D7:18] Melanie: Thanks, Caroline! Just got some new shoes, too!";
    expect(turnGist(terse, q)).toBe("[D7:18] Melanie: … Just got some new shoes, too!");
    expect(turnGist("[D8:3] Melanie: Awesome! [shares a photo: a bowl from my pottery class]", q)).toBe(
      "[D8:3] Melanie: … [shares a photo: a bowl from my pottery class]",
    );
    const longer = "[D2:5] Melanie: What type of movies do you like best when it rains?";
    expect(turnGist(longer, q)).toBe(longer);
    const asked = "[D3:4] Melanie: Any activities for kids? I'm looking.";
    expect(turnGist(asked, q)).toBe(asked);
  });

  it("never empties a turn: one that says nothing else is shown whole", () => {
    const nothing = "[D15:13] Caroline: Wow! Did you see that band?";
    expect(turnGist(nothing, q)).toBe(nothing);
  });
});

const chat = (date: string, session: number, turns: string[]) =>
  `# ${date}\n\n## Session ${session} — John and Tim\n\n${turns.map((t, i) => `[D${session}:${i + 1}] ${t}`).join("\n")}\n`;

const TITLES = ["Dune", "Emma", "Ulysses", "Beloved", "Middlemarch", "Persuasion", "Rebecca", "Dracula"];

describe("recall of a speaker's doings with the turns' gist", () => {
  it("fits more of the speaker's turns in the budget, each without its small talk", async () => {
    const files: Record<string, string> = {};
    TITLES.forEach((title, i) => {
      const day = String(i + 1).padStart(2, "0");
      files[`memory/2023-03-${day}.md`] = chat(`2023-03-${day}`, i + 1, [
        "John: Hey Tim, long week of basketball practice, my legs are done.",
        `Tim: Hey John! Good to see you! How have you been? What's new with you? Anything fun? That's awesome, John! I finished ${title} last night.`,
        "John: Nice, the season opener is next week and coach wants extra drills.",
        "Tim: Wow, John! Take care of those legs, man!",
      ]);
    });
    files["memory/2023-04-01.md"] = chat("2023-04-01", 9, [
      "John: Did you read anything good lately?",
      "Tim: I read a lot of books this winter, mostly classics.",
    ]);
    const t = await indexOf(files);
    const out = await recall(t.searcher, t.store, {
      query: "What books has Tim read?",
      record: false,
      budgetTokens: 330,
    });
    const shown = TITLES.filter((title) => out.context.includes(`I finished ${title} last night`));
    // The small talk is left out of the turns listed, the title each turn names is kept.
    expect(out.context).toContain("… I finished");
    // Whole (with their small talk), four of these turns fitted the same budget.
    expect(shown.length).toBeGreaterThanOrEqual(7);
  });
});
