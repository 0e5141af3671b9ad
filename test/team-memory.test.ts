import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { daemonsPerTest, startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { countTokens } from "../src/ingest/tokens.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

/** A team workspace (config `shared: true`) beside a personal one, on a real daemon. */
const { track } = daemonsPerTest();

async function daemon(workspaces: unknown[]): Promise<TestDaemon> {
  const d = track(
    await startDaemon({
      config: { device: { name: "laptop", user: "ann" }, workspaces, daemon: { debounceMs: 50, settleMs: 20 } },
    }),
  );
  await waitUntil(async () => (await d.call("cortex.status", {})).workspaces.every((w) => w.lastSync !== null), 30_000);
  return d;
}

describe("a team workspace", () => {
  it("is never private, gets saves only when named, tags them with the writer, and recall says where a memory came from", async () => {
    const team = tempDir("cortexd-team-");
    const me = tempDir("cortexd-me-");
    writeFiles(team, { "MEMORY.md": "# Team memory\n\n- The on-call rota lives in the ops wiki\n" });
    writeFiles(me, { "MEMORY.md": "# Memory\n\n- My on-call pager PIN is in the vault\n" });
    // The team's workspace is listed first: it is still never the default.
    const d = await daemon([
      { path: team, name: "team", shared: true },
      { path: me, name: "me" },
    ]);
    const st = await d.call("cortex.status", {});
    expect(st.workspaces.map((w) => [w.name, w.shared ?? false])).toEqual([
      ["team", true],
      ["me", false],
    ]);

    const mine = await d.call("memory.save", { text: "Order a new laptop charger" });
    expect(readFileSync(join(me, mine.path), "utf8")).toContain("laptop charger");
    const theirs = await d.call("memory.save", { text: "Deploys freeze on Friday afternoons", workspace: "team" });
    const line = readFileSync(join(team, theirs.path), "utf8")
      .split("\n")
      .find((l) => l.includes("Deploys freeze"))!;
    expect(line).toBe("- Deploys freeze on Friday afternoons #by/ann/laptop");

    // Group scope hides a personal MEMORY.md, never the team's (nothing there is private).
    const shared = await d.call("memory.recall", { query: "on-call rota", scope: "group", workspace: "team" });
    expect(shared.context).toContain("ops wiki");
    expect(shared.context).toMatch(/^- (\[\d{4}-\d{2}-\d{2}\] )?team:MEMORY\.md:\d+-\d+: /m);
    expect(shared.memories[0]!.source).toEqual({ workspace: "team", shared: true });
    const tagged = await d.call("memory.recall", { query: "deploys freeze Friday", workspace: "team" });
    // The tag is what the bullet claims, not a proof: anyone who can write the file can write it.
    expect(tagged.memories.find((m) => m.text.includes("Deploys freeze"))!.source).toEqual({
      workspace: "team",
      shared: true,
      claimedBy: "ann@laptop",
    });
    // A teammate's bullet that names another member is shown as that claim, never as `by`.
    writeFiles(team, {
      "memory/2026-11-20.md": "# 2026-11-20\n\n- The staging canary is named quokkaflare #by/ann/laptop\n",
    });
    await waitUntil(
      async () => (await d.call("memory.search", { query: "quokkaflare", workspace: "team" })).results.length > 0,
      20_000,
    );
    const forged = await d.call("memory.recall", {
      query: "what is the staging canary quokkaflare?",
      workspace: "team",
    });
    const src = forged.memories.find((m) => m.text.includes("quokkaflare"))?.source;
    expect(src, JSON.stringify(forged)).toBeDefined();
    expect(src).not.toHaveProperty("by");
    expect(src!.claimedBy).toBe("ann@laptop");
    expect((await d.call("memory.recall", { query: "laptop charger" })).memories[0]!.source).toEqual({
      workspace: "me",
    });
    // Recall from the personal workspace brings in the team's too, each memory labelled with its source.
    const mixed = await d.call("memory.recall", { query: "on-call", scope: "group" });
    expect(mixed.context).toMatch(/^- (\[\d{4}-\d{2}-\d{2}\] )?team:MEMORY\.md:/m);
    expect(mixed.context).not.toContain("pager PIN");
    const both = await d.call("memory.recall", { query: "on-call" });
    expect(both.memories.map((m) => m.source!.workspace).sort()).toEqual(["me", "team"]);
    expect(both.context).toContain("pager PIN");
    expect(both.context).toMatch(/^- (\[\d{4}-\d{2}-\d{2}\] )?team:MEMORY\.md:/m);
  });

  it("a team workspace's recall stays within its budget, the workspace label counted", async () => {
    const team = tempDir("cortexd-team-");
    const notes = [
      "Billing canary caught a currency rounding bug before the rollout reached Europe",
      "Search canary showed p99 latency doubling, so the index migration was paused",
      "Auth canary rejected legacy tokens; we added a grace window of two days",
      "Mailer canary sent duplicate receipts because the retry queue was not idempotent",
      "Exports canary ran out of disk on the small worker pool, resized to 200 GB",
      "Reports canary found a timezone shift in the weekly summaries for Sydney",
      "Imports canary choked on CSV files with a byte order mark, now stripped first",
      "Payments canary hit the provider rate limit; batching fixed it before rollout",
    ];
    const days: Record<string, string> = {};
    notes.forEach((note, i) => {
      const d = `2026-11-${String(10 + i).padStart(2, "0")}`;
      days[`memory/${d}.md`] = `# ${d}\n\n- ${note}.\n`;
    });
    // Other days, so that "canary" is a word of some memories, not of all.
    for (let i = 0; i < 12; i++) days[`memory/2026-10-${String(10 + i).padStart(2, "0")}.md`] = `- Lunch plan ${i}.\n`;
    writeFiles(team, days);
    const d = await daemon([{ path: team, name: "a-long-team-workspace-name", shared: true }]);
    for (const budgetTokens of [120, 200, 400]) {
      const r = await d.call("memory.recall", {
        query: "canary",
        workspace: "a-long-team-workspace-name",
        budgetTokens,
      });
      expect(r.memories.length).toBeGreaterThan(1);
      expect(r.context).toMatch(/^- \[2026-11-\d\d\] a-long-team-workspace-name:memory\//m);
      expect(countTokens(r.context), `budget ${budgetTokens}`).toBeLessThanOrEqual(budgetTokens);
      expect(r.tokens_used).toBeGreaterThanOrEqual(countTokens(r.context));
    }
  });

  it("a personal recall with the team's is merged line by line: within the budget, one line per memory, labels where they belong", async () => {
    const team = tempDir("cortexd-team-");
    const me = tempDir("cortexd-me-");
    const notes = (who: string) => [
      `${who} billing canary caught a currency rounding bug before the rollout reached Europe`,
      `${who} search canary showed p99 latency doubling, so the index migration was paused`,
      `${who} auth canary rejected legacy tokens; we added a grace window of two days`,
      `${who} mailer canary sent duplicate receipts because the retry queue was not idempotent`,
      `${who} exports canary ran out of disk on the small worker pool, resized to 200 GB`,
    ];
    const files = (who: string, month: string) => {
      const days: Record<string, string> = {};
      notes(who).forEach((note, i) => {
        const d = `2026-${month}-${String(10 + i).padStart(2, "0")}`;
        days[`memory/${d}.md`] = `# ${d}\n\n- ${note}.\n`;
      });
      for (let i = 0; i < 10; i++) days[`memory/2026-${month}-${String(20 + i)}.md`] = `- Lunch plan ${i}.\n`;
      return days;
    };
    writeFiles(team, files("Team", "10"));
    writeFiles(me, files("My", "11"));
    const d = await daemon([
      { path: team, name: "a-long-team-workspace-name", shared: true },
      { path: me, name: "me" },
    ]);
    for (const budgetTokens of [120, 200, 400, 2000]) {
      const r = await d.call("memory.recall", { query: "canary", budgetTokens });
      const lines = r.context.split("\n").slice(2, -1);
      expect(lines.length, `budget ${budgetTokens}`).toBe(r.memories.length);
      expect(countTokens(r.context), `budget ${budgetTokens}`).toBeLessThanOrEqual(budgetTokens);
      expect(r.tokens_used).toBeGreaterThanOrEqual(countTokens(r.context));
      r.memories.forEach((m, i) => {
        const label = m.source!.shared ? "a-long-team-workspace-name:" : "";
        expect(lines[i]).toBe(`- [${m.date}] ${label}${m.path}:${m.startLine}-${m.endLine}: ${m.text}`);
      });
      if (budgetTokens === 2000)
        expect(new Set(r.memories.map((m) => m.source!.workspace))).toEqual(
          new Set(["me", "a-long-team-workspace-name"]),
        );
    }
  });

  it("with only team workspaces configured, a save that names none is refused with what to do", async () => {
    const team = tempDir("cortexd-team-");
    writeFiles(team, { "MEMORY.md": "# Team memory\n" });
    const d = await daemon([{ path: team, name: "team", shared: true }]);
    await expect(d.call("memory.save", { text: "Where does this go?" })).rejects.toThrow(
      /shared .*name the one to write to/,
    );
    expect((await d.call("memory.save", { text: "Named, so it goes here", workspace: "team" })).stored).toBe(true);
  });
});
