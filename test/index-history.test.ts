/**
 * `index.history` (#37, the Overview's plot of the index over time) against a real daemon: files and
 * chunks of each kind by the date of their memories, per month or day, bounded, scope-aware.
 */
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { daemonsPerTest } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

const { daemonOn } = daemonsPerTest();

const msg = (at: string, role: string, text: string) =>
  JSON.stringify({ type: "message", timestamp: at, message: { role, content: [{ type: "text", text }] } });

function workspace(): string {
  const root = tempDir();
  writeFiles(root, {
    "memory/2026-09-14.md": "# 2026-09-14\n\n- The billing export moved to 06:00.\n",
    "memory/2026-11-02.md": "# 2026-11-02\n\n- Alice owns the staging database now.\n",
    "memory/2026-11-20.md": "# 2026-11-20\n\n- The VPN certificate expires in March.\n",
    "memory/ideas.md": "# Ideas\n\n- A dashboard for the deploy queue.\n",
    "MEMORY.md": "# Memory\n\n- Deploys freeze on Fridays.\n",
    "sessions/chat.jsonl":
      [
        JSON.stringify({ type: "session", id: "s1", timestamp: "2026-10-05T09:00:00Z" }),
        msg("2026-10-05T09:00:05Z", "user", "Why are the invoice exports slow on Mondays?"),
        msg("2026-10-05T09:00:20Z", "assistant", "The Monday export runs after the weekly staging refresh."),
      ].join("\n") + "\n",
  });
  // A note and the curated file are dated by their last change.
  utimesSync(join(root, "memory/ideas.md"), new Date("2026-08-01T12:00:00Z"), new Date("2026-08-01T12:00:00Z"));
  utimesSync(join(root, "MEMORY.md"), new Date("2026-11-10T12:00:00Z"), new Date("2026-11-10T12:00:00Z"));
  return root;
}

describe("index.history (real daemon)", () => {
  it("counts files and chunks of each kind per month and day, the newest periods only, in the caller's scope", async () => {
    const d = await daemonOn(workspace());

    const months = await d.call("index.history", {});
    expect(months.by).toBe("month");
    expect(months.periods.map((p) => p.period)).toEqual(["2026-08", "2026-09", "2026-10", "2026-11"]);
    const files = Object.fromEntries(months.periods.map((p) => [p.period, p.files]));
    expect(files["2026-08"]).toEqual({ curated: 0, daily: 0, note: 1, transcript: 0 });
    expect(files["2026-09"]).toEqual({ curated: 0, daily: 1, note: 0, transcript: 0 });
    expect(files["2026-10"]).toEqual({ curated: 0, daily: 0, note: 0, transcript: 1 }); // its first message's date
    expect(files["2026-11"]).toEqual({ curated: 1, daily: 2, note: 0, transcript: 0 });
    for (const p of months.periods)
      for (const kind of ["curated", "daily", "note", "transcript"] as const)
        expect(p.chunks[kind] > 0).toBe(p.files[kind] > 0);
    const status = (await d.call("index.status", {})).workspaces[0]!;
    expect(months.total).toEqual({ files: status.files, chunks: status.chunks });

    // Bounded: the newest periods; what is older is summed.
    const two = await d.call("index.history", { limit: 2 });
    expect(two.periods.map((p) => p.period)).toEqual(["2026-10", "2026-11"]);
    expect(two.before.files).toEqual({ curated: 0, daily: 1, note: 1, transcript: 0 });

    // By day: every day from the oldest to the newest memory, the days without any as zeros.
    const days = await d.call("index.history", { by: "day", limit: 400 });
    expect(days.periods[0]!.period).toBe("2026-08-01");
    expect(days.periods.at(-1)!.period).toBe("2026-11-20");
    expect(days.periods).toHaveLength(112);
    expect(days.periods.find((p) => p.period === "2026-08-02")!.files).toEqual({
      curated: 0,
      daily: 0,
      note: 0,
      transcript: 0,
    });
    expect((await d.call("index.history", { by: "day" })).periods).toHaveLength(60);

    // A group's scope sees neither the curated file nor the private (DM) transcript.
    const group = await d.call("index.history", { scope: "group" });
    expect(group.periods.map((p) => p.period)).toEqual(["2026-08", "2026-09", "2026-10", "2026-11"]);
    expect(group.periods.reduce((n, p) => n + p.files.curated + p.files.transcript, 0)).toBe(0);
    expect(group.total.files).toBe(4);

    await expect(d.call("index.history", { by: "week" as "day" })).rejects.toThrow(/by/);
    await expect(d.call("index.history", { limit: 10_000 })).rejects.toThrow(/limit/);
  }, 60_000);
});
