/**
 * Facts over time (src/facts, search/recall-facts.ts): statements about the same entity and value
 * class are linked in time order at index time; recall shows the current one and leaves the
 * superseded ones out (or marks them with includeHistory), as of `referenceDate`; editing the newer
 * line away brings the older back. Real files, a real index (keyword-only: deterministic ranking).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { recall } from "../src/search/recall.js";
import { reinforcedOrder, timesStated } from "../src/search/reinforcement.js";
import type { AnnotatedHit } from "../src/consolidate/annotate.js";
import { openTestIndex, tempDir, writeFiles, type TestIndex } from "./helpers/workspace.js";
import { classEdges, slotEntries } from "../src/facts/link.js";
import { readStatement } from "../src/facts/mentions.js";
import { LINKS_SQL } from "../src/index/repos/facts-repo.js";

const open: TestIndex[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

function daily(date: string, lines: string[]): string {
  return `# ${date}\n\n${lines.map((l) => `- ${l}`).join("\n")}\n`;
}

const FILES = {
  "MEMORY.md": "# Memory\n\n- Priya reports to Marta Kowalski.\n- Prefers tea over coffee.\n",
  "memory/2026-03-02.md": daily("2026-03-02", [
    "09:10 Sam baked bread for the team lunch.",
    "11:20 The ledger job runs on node-7.",
  ]),
  "memory/2026-05-20.md": daily("2026-05-20", [
    "10:05 Priya no longer reports to Marta Kowalski; Tomas Berg is the manager now.",
    "15:00 Reviewed the refund dry-run pull request.",
  ]),
  "memory/2026-06-11.md": daily("2026-06-11", ["08:30 Moved the ledger job from node-7 to node-12 tonight."]),
};

async function indexOf(files: Record<string, string>): Promise<TestIndex & { root: string }> {
  const root = tempDir();
  writeFiles(root, files);
  const t = openTestIndex(root, null);
  open.push(t);
  await t.indexer.sync();
  return Object.assign(t, { root });
}

describe("facts over time", () => {
  it("recalls the current statement and leaves the superseded one out; includeHistory marks it", async () => {
    const t = await indexOf(FILES);
    const now = await recall(t.searcher, t.store, {
      query: "Who is Priya's manager?",
      record: false,
      referenceDate: "2026-07-01",
    });
    expect(now.context).toContain("Tomas Berg");
    // The uncorrected curated line is older than the daily log's change: left out.
    expect(now.context).not.toContain("Priya reports to Marta Kowalski");
    const history = await recall(t.searcher, t.store, {
      query: "Who is Priya's manager?",
      record: false,
      referenceDate: "2026-07-01",
      includeHistory: true,
      explain: true,
    });
    expect(history.context).toContain("[superseded 2026-05-20] Priya reports to Marta Kowalski");
    expect(history.explain!.facts!.links).toContainEqual(
      expect.objectContaining({ statement: "MEMORY.md:3", supersededBy: "memory/2026-05-20.md:3", on: "2026-05-20" }),
    );
  });

  it("answers as of the referenceDate: the same workspace as of two dates", async () => {
    const t = await indexOf(FILES);
    const ask = (referenceDate: string) =>
      recall(t.searcher, t.store, { query: "Which host does the ledger job run on?", record: false, referenceDate });
    const april = await ask("2026-04-01");
    const july = await ask("2026-07-01");
    expect(april.context).toContain("node-7");
    expect(april.context).not.toContain("node-12");
    expect(july.context).toContain("node-12");
    expect(july.context).not.toMatch(/runs on node-7/);
  });

  it("a question about a past month gets the value of that month", async () => {
    const t = await indexOf(FILES);
    const res = await recall(t.searcher, t.store, {
      query: "Which host did the ledger job run on in April?",
      record: false,
      referenceDate: "2026-07-01",
    });
    expect(res.context).toContain("node-7");
    expect(res.context).not.toContain("node-12");
  });

  it("editing the newer line away brings the older one back as current", async () => {
    const t = await indexOf(FILES);
    const ask = () =>
      recall(t.searcher, t.store, {
        query: "Which host does the ledger job run on?",
        record: false,
        referenceDate: "2026-07-01",
      });
    expect((await ask()).context).toContain("node-12");
    writeFileSync(join(t.root, "memory/2026-06-11.md"), daily("2026-06-11", ["08:30 Paid the electricity bill."]));
    await t.indexer.sync();
    const after = await ask();
    expect(after.context).toContain("The ledger job runs on node-7");
    expect(after.context).not.toContain("node-12");
  });

  it("search --explain shows the ledger move, and no longer once the newer line is edited away", async () => {
    const t = await indexOf(FILES);
    const explainOld = async () =>
      (await t.searcher.search({ query: "ledger job node-7", explain: true })).results.find(
        (h) => h.path === "memory/2026-03-02.md",
      )!;
    expect((await explainOld()).facts!.links).toContain(
      "line 4 (ledger job) superseded by memory/2026-06-11.md:3 on 2026-06-11",
    );
    const newer = (await t.searcher.search({ query: "ledger job node-7", explain: true })).results.find(
      (h) => h.path === "memory/2026-06-11.md",
    )!;
    expect(newer.facts!.links).toContain("line 3 (ledger job) supersedes memory/2026-03-02.md:4");
    writeFileSync(join(t.root, "memory/2026-06-11.md"), daily("2026-06-11", ["08:30 Paid the electricity bill."]));
    await t.indexer.sync();
    expect((await explainOld()).facts?.links ?? []).not.toContainEqual(expect.stringContaining("superseded by"));
  });

  it("explain reads a result's links through indexes, never a scan of every slot (~1 s a result at 1M chunks)", async () => {
    const t = await indexOf(FILES);
    const db = new Database(t.dbPath, { readonly: true });
    for (const sql of Object.values(LINKS_SQL)) {
      const plan = (
        db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all("memory/2026-06-11.md", 1, 99) as { detail: string }[]
      ).map((r) => r.detail);
      expect(
        plan.filter((d) => d.startsWith("SCAN")),
        plan.join(" | "),
      ).toEqual([]);
    }
    db.close();
  });

  it("leaves prompts about no changed fact as they were", async () => {
    const t = await indexOf(FILES);
    const res = await recall(t.searcher, t.store, {
      query: "Who baked bread for lunch?",
      record: false,
      explain: true,
    });
    expect(res.context).toContain("Sam baked bread");
    expect(res.explain!.facts!.links).toEqual([]);
  });

  it("search --explain shows which statement superseded which, and the entities of each memory", async () => {
    const t = await indexOf(FILES);
    const res = await t.searcher.search({ query: "Priya Marta Kowalski Tomas Berg", explain: true });
    const curated = res.results.find((h) => h.path === "MEMORY.md")!;
    expect(curated.facts!.entities).toEqual(expect.arrayContaining(["Priya", "Marta Kowalski"]));
    expect(curated.facts!.links).toContain("line 3 (priya) superseded by memory/2026-05-20.md:3 on 2026-05-20");
    const log = res.results.find((h) => h.path === "memory/2026-05-20.md")!;
    expect(log.facts!.links).toContain("line 3 (priya) supersedes MEMORY.md:3");
  });

  it("status's top entities: the names most memories name", async () => {
    const t = await indexOf(FILES);
    const top = t.store.entities.top(5).map((e) => e.name);
    expect(top).toEqual(expect.arrayContaining(["Priya", "Marta Kowalski"]));
  });

  it("reinforcement: a fact stated again and again ranks above one said once at a similar score, not above a much better match", () => {
    const hit = (path: string, score: number, extra: Partial<AnnotatedHit> = {}): AnnotatedHit => ({
      path,
      startLine: 1,
      endLine: 1,
      score,
      vectorScore: 0,
      textScore: score,
      snippet: path,
      source: "daily",
      ...extra,
    });
    const once = hit("once.md", 0.6);
    const often = hit("often.md", 0.57, { duplicates: 4 });
    const weak = hit("weak.md", 0.3, { duplicates: 8 });
    expect(timesStated(often, 1)).toBe(4);
    const order = reinforcedOrder([once, often, weak].map((h) => ({ hit: h, times: timesStated(h, 1) })));
    expect(order.map((o) => o.hit.path)).toEqual(["often.md", "once.md", "weak.md"]);
  });
});

describe("facts a newcomer writes down", () => {
  it("an uncorrected curated line about a meeting or a host is left out once a log says it changed", async () => {
    const t = await indexOf({
      "MEMORY.md":
        "# Memory\n\n- Weekly planning is on Tuesdays at 10:00.\n- The staging database is pg-stage-02 on the old box.\n",
      "memory/2026-12-01.md": daily("2026-12-01", [
        "Migrated the staging database to pg-stage-07 on RDS; pg-stage-02 is decommissioned.",
      ]),
      "memory/2026-12-04.md": daily("2026-12-04", ["Weekly planning moved to Wednesdays at 09:30 starting next week."]),
    });
    const ask = (query: string) => recall(t.searcher, t.store, { query, record: false, referenceDate: "2026-12-06" });
    const planning = await ask("when is weekly planning?");
    expect(planning.context).toContain("Wednesdays at 09:30");
    expect(planning.context).not.toContain("Tuesdays");
    const db = await ask("which host is the staging database on?");
    expect(db.context).toContain("pg-stage-07");
    expect(db.context).not.toContain("on the old box");
  });
});

describe("a date that changes", () => {
  it("a day of the month is a value: the date moved to another month supersedes the first one", async () => {
    const t = await indexOf({
      "memory/2026-11-20.md": daily("2026-11-20", [
        "09:00 Dentist appointment booked for Nov 30 at 09:00.",
        "11:00 Reviewed the refund dry-run pull request.",
      ]),
      "memory/2026-11-28.md": daily("2026-11-28", [
        "10:00 Dentist appointment moved to Dec 10.",
        "12:00 Cleaned up the alerting thresholds.",
      ]),
    });
    const got = await recall(t.searcher, t.store, {
      query: "when is the dentist appointment?",
      record: false,
      referenceDate: "2026-11-29",
    });
    expect(got.context).toContain("moved to Dec 10");
    expect(got.context).not.toContain("booked for Nov 30");
  });
});

describe("a change written today", () => {
  it("counts as said by now, though its entry has no time (a day's entries are placed at its noon)", async () => {
    const t = await indexOf({
      "memory/2026-12-06.md": daily("2026-12-06", ["Weekly planning is at 2pm.", "Reviewed the refund dry-run."]),
      "memory/2026-12-07.md": daily("2026-12-07", ["Weekly planning moved to 4pm.", "Cleaned up the alerts."]),
    });
    const got = await recall(t.searcher, t.store, {
      query: "when is weekly planning?",
      record: false,
      now: () => Date.parse("2026-12-07T11:00:00Z"),
    });
    expect(got.context).toContain("moved to 4pm");
    expect(got.context).not.toContain("is at 2pm");
  });
});

describe("a common word is no subject", () => {
  it("notes that share only a word and a weekday do not supersede each other: the answer stays first", async () => {
    const t = await indexOf({
      "memory/2026-02-25.md": daily("2026-02-25", ["17:45 Stripe webhook signature errors in the logs on Monday."]),
      "memory/2026-02-28.md": daily("2026-02-28", [
        "15:55 Stripe webhooks failed the signature check because we parsed the body as JSON first; use the raw body for the check.",
      ]),
      "memory/2026-05-10.md": daily("2026-05-10", ["11:00 The webhook retries dashboard is reviewed on Fridays."]),
      "memory/2026-07-28.md": daily("2026-07-28", [
        "19:10 Tom asked me to review the webhook retries estimate before Tuesday.",
      ]),
    });
    const r = await recall(t.searcher, t.store, {
      query: "stripe says the webhook signature check fails, what was wrong?",
      record: false,
      referenceDate: "2026-08-01",
    });
    expect(r.memories[0]?.text).toContain("use the raw body");
  });
});

describe("a changed fact that repeats most of the old one's words", () => {
  // Tried by hand: "where is the staging db?" showed the curated "db-stage-02" only — the log's
  // move to db-stage-05 holds nearly every word of it, so it was packed as its near duplicate, and
  // "db" named no entity ("staging database"), so nothing said which one is current.
  const files = {
    "MEMORY.md":
      "# Memory\n\n- The staging database lives on db-stage-02.\n- Weekly sync with Omar is on Mondays at 11:00.\n",
    "memory/2026-12-04.md": daily("2026-12-04", [
      "Moved the staging database to db-stage-05 after the disk failure on 02.",
      "Lunch with Priya at the noodle place.",
    ]),
  };

  it("recalls the newer statement first, and the older one is left out (or marked with history)", async () => {
    const t = await indexOf(files);
    for (const query of [
      "where is the staging db?",
      "which host is the staging database on?",
      "which database does staging use?",
    ]) {
      const r = await recall(t.searcher, t.store, { query, record: false, referenceDate: "2026-12-06" });
      expect(r.context, query).toContain("db-stage-05");
      expect(r.context, query).not.toContain("lives on db-stage-02");
    }
    const h = await recall(t.searcher, t.store, {
      query: "where is the staging db?",
      record: false,
      referenceDate: "2026-12-06",
      includeHistory: true,
    });
    expect(h.context.indexOf("db-stage-05")).toBeGreaterThan(-1);
    expect(h.context).toContain("[superseded 2026-12-04] The staging database lives on db-stage-02.");
  });
});

describe("an index read by an older reader of statements", () => {
  it("is read again once after an upgrade, so the new rules apply to the old files", async () => {
    const files = {
      "MEMORY.md": "# Memory\n\n- Weekly planning is on Tuesdays at 10:00.\n",
      "memory/2026-12-04.md": daily("2026-12-04", ["Weekly planning moved to Wednesdays at 09:30 starting next week."]),
    };
    const first = await indexOf(files);
    const { root, dbPath } = first;
    first.close();
    open.splice(open.indexOf(first), 1);
    // What an older reader left: the chunks marked read, without what today's rules find in them.
    const db = new Database(dbPath);
    db.exec("DELETE FROM fact_statements; DELETE FROM chunk_entities; DELETE FROM meta WHERE key = 'facts_reader'");
    db.close();
    const t = openTestIndex(root, null, dbPath);
    open.push(t);
    await t.indexer.sync();
    const r = await recall(t.searcher, t.store, {
      query: "when is weekly planning?",
      record: false,
      referenceDate: "2026-12-06",
    });
    expect(r.context).toContain("Wednesdays at 09:30");
    expect(r.context).not.toContain("Tuesdays");
  });
});

describe("a curated line that only today's rules read as a statement", () => {
  // Found by upgrading a live index: "runs on db-stage-2.internal" named no value for the older
  // reader, so its first-seen time was never recorded; read again after the upgrade it counted as
  // written now and superseded the log's later move.
  it("counts as written before the logs, as at the first index, and its first sight is kept from now on", async () => {
    const files = {
      "MEMORY.md":
        "# Memory\n\n- The staging database runs on db-stage-2.internal.\n- Keep release notes short and plain.\n",
      "memory/2026-12-04.md": daily("2026-12-04", ["Staging database moved to db-stage-3.internal."]),
    };
    const first = await indexOf(files);
    const { root, dbPath } = first;
    first.close();
    open.splice(open.indexOf(first), 1);
    const db = new Database(dbPath);
    // Every curated entry's first sight is kept, a statement or not (a later reader may read it as one).
    expect(db.prepare("SELECT count(*) FROM fact_seen WHERE path = 'MEMORY.md'").pluck().get()).toBe(2);
    // What an older reader left: the line read as no statement, so never dated.
    db.exec("DELETE FROM fact_seen; UPDATE meta SET value = '4' WHERE key = 'facts_reader'");
    db.close();
    const t = openTestIndex(root, null, dbPath);
    open.push(t);
    await t.indexer.sync();
    // As of now (the reading's clock): no date before the moment the line was read again.
    const r = await recall(t.searcher, t.store, { query: "where is the staging database?", record: false });
    expect(r.context).toContain("db-stage-3.internal");
    expect(r.context).not.toContain("runs on db-stage-2.internal");
  });
});

describe("a name inside a thing's name", () => {
  // "SDK" of "the SDK repo" is part of what the statement is about, not a value: read as one, it
  // joined the CI systems' class with the teams' projects and people through shared predicates,
  // and a line about who owns a project superseded a line about someone's editor.
  it("is no value of a class", () => {
    for (const text of ["Flaky GitHub Actions runner on the SDK repo again.", "The SDK repo dropped Jenkins."]) {
      const r = readStatement(text);
      expect(classEdges(r).flat(), text).not.toContain("sdk");
      const entries = slotEntries({ id: 1, at: null, reading: r }, new Map());
      expect(
        entries.flatMap((e) => [...e.news, ...e.olds]),
        text,
      ).not.toContain("sdk");
    }
  });
});

describe("hosts as people write them", () => {
  // Found by trying the daemon: a host written as a domain name ("db-stage-2.internal") was read as
  // a plain word, not a value, so the log's move did not supersede the curated line; and a
  // parenthesis ("… to db-stage-3.internal (db-stage-2 decommissioned)") did not end the clause,
  // so the negation made the new host old too.
  const old = (text: string) =>
    readStatement(text)
      .mentions.filter((m) => m.kind === "value")
      .map((m) => [m.key, m.cls, m.old === true]);

  it("reads a domain name or an IPv4 address as a host value, and a file name as none", () => {
    expect(old("The staging database runs on db-stage-2.internal.")).toEqual([["db-stage-2.internal", "id", false]]);
    expect(old("Grafana lives at grafana.ops.example.com now")).toEqual([["grafana.ops.example.com", "id", false]]);
    expect(old("The VPN gateway is 10.20.0.1:51820")).toEqual([["10.20.0.1:51820", "id", false]]);
    for (const text of [
      "Edited README.md and package.json",
      "Tried Node.js streams, e.g. pipeline",
      "Kafka 3.7 pinned",
      // A sentence run into the next without a space is no domain name.
      "We shipped it.Then the deploy moved to Friday",
    ])
      expect(
        old(text).filter(([, cls]) => cls === "id"),
        text,
      ).toEqual([]);
  });

  it("ends a clause at a parenthesis, and reads what a thing moved off as old", () => {
    expect(old("Staging database moved to db-stage-3.internal (db-stage-2 decommissioned).")).toEqual([
      ["db-stage-3.internal", "id", false],
      ["db-stage-2", "id", true],
    ]);
    expect(old("Moved the staging db off db-stage-2, now on db-stage-3.")).toEqual([
      ["db-stage-2", "id", true],
      ["db-stage-3", "id", false],
    ]);
  });

  it("a log's move to a new host leaves the curated line with the old one out", async () => {
    const t = await indexOf({
      "MEMORY.md":
        "# Memory\n\n- The staging database runs on db-stage-2.internal.\n- Standup is at 9:00 every weekday.\n",
      "memory/2026-12-04.md": daily("2026-12-04", [
        "Staging database moved to db-stage-3.internal (db-stage-2 decommissioned).",
      ]),
    });
    const r = await recall(t.searcher, t.store, {
      query: "where is the staging database?",
      record: false,
      referenceDate: "2026-12-06",
    });
    expect(r.context).toContain("db-stage-3.internal");
    expect(r.context).not.toContain("runs on db-stage-2.internal");
  });
});

describe("settings that change", () => {
  const values = (text: string) =>
    readStatement(text)
      .mentions.filter((m) => m.kind === "value")
      .map((m) => [m.key, m.cls]);

  it("reads a port and a setting's amount as values; an event's count or duration, and a verb before a number, as none", () => {
    expect(values("The dev server runs on port 3000")).toEqual([["port 3000", "port"]]);
    expect(values("Set the session timeout to 30 minutes")).toEqual([["30 minutes", "amount:time"]]);
    expect(values("Raised the heap limit to 512MB")).toEqual([["512mb", "amount:bytes"]]);
    expect(values("The ingest workers run with 8 replicas")).toEqual([["8 replicas", "count:replica"]]);
    expect(values("Bump webhook retries to 8 attempts")).toEqual([["8 attempts", "count:attempt"]]);
    expect(values("Standup ran 45 minutes over")).toEqual([]);
    expect(values("Fixed 3 bugs in billing-api")).toEqual([]);
    expect(values("Node 22 is the runtime of billing-api")).toEqual([["node 22", "version:node"]]);
  });

  it("a port moved in a later session supersedes the earlier one; two days of bug fixes do not", async () => {
    const t = await indexOf({
      "memory/2026-11-30.md": daily("2026-11-30", [
        "The dev server runs on port 3000.",
        "Fixed 3 bugs in billing-api, all in refund rounding.",
      ]),
      "memory/2026-12-05.md": daily("2026-12-05", [
        "Moved the dev server to port 5173 because 3000 clashes with Grafana.",
        "Fixed 2 bugs in billing-api around the webhook signature check.",
      ]),
    });
    const ask = (query: string) => recall(t.searcher, t.store, { query, record: false, referenceDate: "2026-12-07" });
    const port = await ask("which port does the dev server use?");
    expect(port.context).toContain("port 5173");
    expect(port.context).not.toContain("runs on port 3000");
    const bugs = await ask("what bugs did I fix in billing-api?");
    expect(bugs.context).toContain("Fixed 3 bugs");
    expect(bugs.context).toContain("Fixed 2 bugs");
  });
});

describe("requests to an agent", () => {
  // "Bump", "Deploy" opening a user's message read as names: an entity shared by every request
  // opening with the verb, so one service's change superseded another's.
  it("a request verb opening a message is no name, and two services' changes stay apart", async () => {
    for (const text of ["Bump billing-api to 8 replicas", "Deploy search-api to prod", "Rebase onto main"])
      expect(
        readStatement(text).mentions.filter((m) => m.kind === "name"),
        text,
      ).toEqual([]);
    const t = await indexOf({
      "memory/2026-12-01.md": daily("2026-12-01", ["Bump billing-api to 8 replicas for the sale."]),
      "memory/2026-12-02.md": daily("2026-12-02", ["Bump search-api to 4 replicas, traffic doubled."]),
    });
    const billing = (await t.searcher.search({ query: "billing-api replicas", explain: true })).results.find(
      (h) => h.path === "memory/2026-12-01.md",
    )!;
    expect(billing.facts?.links ?? []).not.toContainEqual(expect.stringContaining("superseded by"));
  });
});
