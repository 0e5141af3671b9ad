import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { daemonsPerTest, startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
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
    expect(tagged.memories.find((m) => m.text.includes("Deploys freeze"))!.source).toEqual({
      workspace: "team",
      shared: true,
      by: "ann@laptop",
    });
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
