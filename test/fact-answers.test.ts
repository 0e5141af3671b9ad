/**
 * A question for the value of something the prompt names is answered by that entity's current
 * statement even when the statement shares no other word with the question (search/fact-answers.ts);
 * and for a prompt about how things stand now, the memories holding every topical word of the prompt
 * come newest first (search/recall-order.ts). Real files, a real index with the built-in model (the
 * default: a prompt's words the index lacks count against a memory's coverage).
 */
import { afterEach, describe, expect, it } from "vitest";
import { recall } from "../src/search/recall.js";
import { askedValue } from "../src/search/fact-answers.js";
import { outdatedBesideAnswers } from "../src/search/answer-outdated.js";
import type { SlotRow } from "../src/index/repos/facts-repo.js";
import type { AnnotatedHit } from "../src/consolidate/annotate.js";
import { asksAboutNow } from "../src/search/prompt-intent.js";
import { builtinProvider } from "./helpers/models.js";
import { openTestIndex, tempDir, writeFiles, type TestIndex } from "./helpers/workspace.js";

const open: TestIndex[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

const FILLER = [
  "Reviewed the pull request for the billing service.",
  "Rotated the staging credentials after the audit.",
  "Paired on the flaky upload test in the pipeline.",
  "Wrote the quarterly goals draft and shared it.",
  "Cleaned up the alerting thresholds for the queue.",
  "Benchmarked the search endpoint after the cache change.",
];

/**
 * Sixty days of logs; Carmen's city changes twice, in words the question does not use (and the
 * question's other words are the workspace's too, so they count against a memory holding only "Carmen").
 */
function workspace(): Record<string, string> {
  const files: Record<string, string> = {
    "MEMORY.md": "# Memory\n\n- Tom Becker is the on-call lead for payments.\n- Prefers short answers.\n",
  };
  for (let i = 0; i < 60; i++) {
    const d = new Date(Date.UTC(2026, 7, 1 + i)).toISOString().slice(0, 10);
    const lines = [`09:00 ${FILLER[i % FILLER.length]}`, `12:00 ${FILLER[(i + 2) % FILLER.length]}`];
    // The question's other words, each about as rare as "Carmen", never on one day together.
    if (i % 5 === 1) lines.push("11:00 Estimate based on the old numbers.");
    if (i % 5 === 3) lines.push("11:00 Two days of onboarding for the new hire.");
    if (i % 4 === 2 && i % 5 !== 1 && i % 5 !== 3)
      lines.push(`17:00 Paired with Carmen on the ${FILLER[i % FILLER.length]!.split(" ")[2]!} work.`);
    if (i === 5) lines.push("13:00 Carmen lives in Prague.");
    if (i === 20) lines.push("14:00 Carmen moved to Munich.");
    if (i === 40) lines.push("16:00 Carmen relocated from Munich to Madrid this week.");
    if (i === 50) lines.push("10:00 Ines Moreau takes over from Tom as the on-call lead for payments.");
    // The staging database's host changes; the question's other words are the workspace's too, never on its days.
    if (i === 12) lines.push("09:30 The staging database moved from db-stg-4 to app-03.");
    if (i === 44) lines.push("09:30 app-03 does not host the staging database anymore, it is on rack22-n1.");
    if (i % 6 === 5) lines.push("15:00 Restarted the staging database after the memory spike.");
    if (i % 20 === 0) lines.push("15:00 Replaced the fan in the spare machine.");
    if (i % 20 === 8) lines.push("15:00 Rotated the ssh keys of the bastion.");
    if (i % 20 === 14) lines.push("15:00 Asked ops to check the backup alerts.");
    files[`memory/${d}.md`] = `# ${d}\n\n${lines.map((l) => `- ${l}`).join("\n")}\n`;
  }
  return files;
}

async function indexed(): Promise<TestIndex> {
  const root = tempDir();
  writeFiles(root, workspace());
  const t = openTestIndex(root, await builtinProvider());
  open.push(t);
  await t.indexer.sync();
  return t;
}

const ask = (t: TestIndex, query: string) =>
  recall(t.searcher, t.store, { query, record: false, referenceDate: "2026-10-05" });

describe("a question for a named entity's value", () => {
  it("is answered by its current statement, in other words than the question's", async () => {
    const t = await indexed();
    for (const q of ["What city is Carmen based in these days?", "Where is Carmen now?", "which town is Carmen in?"]) {
      const got = await ask(t, q);
      expect(got.context, q).toContain("Carmen relocated from Munich to Madrid");
      // Superseded by the move: left out.
      expect(got.context, q).not.toContain("Carmen moved to Munich");
    }
  });

  it("answers for a thing the prompt names in several words", async () => {
    const t = await indexed();
    const got = await ask(t, "What machine should I ssh into to check the staging database?");
    expect(got.context).toContain("it is on rack22-n1");
    expect(got.context).not.toContain("moved from db-stg-4 to app-03");
  });

  it("leaves a question of another kind or about no named entity as it was", async () => {
    const t = await indexed();
    expect((await ask(t, "What is the capital of Spain?")).context).toBe("");
    expect((await ask(t, "Which city has the best tapas?")).context).toBe("");
  });

  it("tells a question for a value from other prompts", () => {
    expect(askedValue("What city is Carmen based in these days?")).toBe("name");
    expect(askedValue("When do we meet for standup now?")).toBe("time");
    expect(askedValue("ok, and which host is it on now?")).toBe("name");
    expect(askedValue("Is Carmen coming to lunch?")).toBeNull();
    expect(askedValue("Move Carmen's meeting to Friday")).toBeNull();
  });
});

describe("older lines beside the answer", () => {
  // "Carmen lives in Prague" is no value of the class learned from "relocated from Munich to Madrid",
  // so no slot links it; beside the answer to where Carmen is now, it is outdated all the same.
  it("leaves out an older statement of another value of the asked kind, or marks it with includeHistory", async () => {
    const t = await indexed();
    const query = "What city is Carmen based in these days?";
    const got = await ask(t, query);
    expect(got.context).toContain("Carmen relocated from Munich to Madrid");
    expect(got.context).not.toContain("Carmen lives in Prague");
    const history = await recall(t.searcher, t.store, {
      query,
      record: false,
      referenceDate: "2026-10-05",
      includeHistory: true,
      explain: true,
    });
    expect(history.context).toMatch(/\[superseded 2026-09-10\] (?:\d\d:\d\d )?Carmen lives in Prague/);
  });

  it("leaves out only older lines naming the entity with another value of the asked kind", () => {
    const at = (d: string) => Date.parse(`${d}T12:00:00Z`);
    const answer: SlotRow = {
      ...{ entity: "carmen", cls: "name:madrid", statement: 1, news: ["madrid"], olds: ["munich"] },
      ...{
        at: at("2026-09-10"),
        path: "memory/2026-09-10.md",
        line: 5,
        text: "Carmen relocated from Munich to Madrid.",
      },
      ...{ hash: "", source: "daily", date: "2026-09-10", supersededBy: null },
    };
    const lines: Record<number, [string, number | null]> = {
      1: ["Carmen lives in Prague.", at("2026-08-06")],
      2: ["Video call with Carmen from Prague; bad connection.", at("2026-08-20")],
      3: ["Paired with Carmen on the billing work.", at("2026-08-21")],
      4: ["Carmen says Madrid is lovely.", at("2026-08-22")],
      5: ["Carmen is flying to Lisbon for the offsite.", at("2026-09-20")],
      6: ["Tom lives in Prague.", at("2026-08-07")],
      7: ["Carmen prefers Zed.", null],
    };
    const hit = {
      path: "notes.md",
      startLine: 1,
      endLine: 7,
      text: Object.values(lines)
        .map(([l]) => l)
        .join("\n"),
    };
    const statementsIn = () =>
      Object.entries(lines).map(([line, [text, when]]) => ({ line: Number(line), at: when, text }));
    const out = outdatedBesideAnswers([answer], [hit as AnnotatedHit], statementsIn, {
      asOf: at("2026-10-05"),
      keep: new Set(),
    });
    // Older and naming another value: Prague (twice), and an undated curated line; not the line
    // without a value, nor the one holding the answer, nor a newer one, nor one about someone else.
    expect([...out.keys()].sort()).toEqual(["notes.md:1", "notes.md:2", "notes.md:7"]);
    expect(out.get("notes.md:1")).toEqual({ by: answer, later: false });
  });
});

describe("a narrower scope", () => {
  it("never gets a current statement it may not see added by facts over time", async () => {
    const files = workspace();
    const day = "memory/2026-09-10.md";
    files[day] = files[day]!.replace(
      "Carmen relocated from Munich to Madrid this week.",
      "Carmen relocated from Munich to Madrid this week. <!-- visibility: private -->",
    );
    const root = tempDir();
    writeFiles(root, files);
    const t = openTestIndex(root, await builtinProvider());
    open.push(t);
    await t.indexer.sync();
    const query = "What city is Carmen based in these days?";
    const mine = await recall(t.searcher, t.store, { query, record: false, referenceDate: "2026-10-05" });
    expect(mine.context).toContain("Madrid");
    for (const scoped of [{ visible: ["open"] }, { excludePath: (p: string) => p === day }]) {
      const got = await recall(t.searcher, t.store, { query, record: false, referenceDate: "2026-10-05", ...scoped });
      expect(got.context).not.toContain("Madrid");
    }
  });
});

describe("how something stands now", () => {
  // The owner's own facts name no entity, and "manager" is the prompt's one word: only a later line
  // saying the thing changed puts the newest first.
  it("shows a later change of the owner's own fact first", async () => {
    const files: Record<string, string> = {
      "MEMORY.md": "# Memory\n\n- My manager is Dana Whitfield.\n",
    };
    for (let i = 0; i < 40; i++) {
      const d = new Date(Date.UTC(2026, 8, 1 + i)).toISOString().slice(0, 10);
      const lines = [`09:00 ${FILLER[i % FILLER.length]}`, `12:00 ${FILLER[(i + 3) % FILLER.length]}`];
      if (i === 20) lines.push("16:30 Dana is moving to the infra org; my new manager is Oksana Petrenko.");
      files[`memory/${d}.md`] = `# ${d}\n\n${lines.map((l) => `- ${l}`).join("\n")}\n`;
    }
    const root = tempDir();
    writeFiles(root, files);
    const t = openTestIndex(root, await builtinProvider());
    open.push(t);
    await t.indexer.sync();
    const manager = (await ask(t, "who is my manager?")).context.split("\n").filter((l) => /manager/i.test(l));
    expect(manager).toHaveLength(2);
    expect(manager[0]).toContain("Oksana Petrenko");
  });

  it("shows the newest statement of it first, and the old order for a question about then", async () => {
    const t = await indexed();
    const now = await ask(t, "who is on call for payments?");
    const lines = now.context.split("\n").filter((l) => l.includes("on-call lead"));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain("Ines Moreau");
    expect(asksAboutNow("who is on call for payments?")).toBe(true);
    expect(asksAboutNow("who was on call for payments before?")).toBe(false);
  });
});
