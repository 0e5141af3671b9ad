/**
 * Entities through the real daemon and CLI: `cortexd status` (text and --json) lists the top named
 * entities with their aliases, and `cortexd search --explain` says which entities the prompt named
 * and which co-occurring ones it followed.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCliAsync } from "./helpers/cli.js";
import { startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";
import { entityFiles } from "./helpers/entity-fixture.js";

let daemon: TestDaemon | null = null;
afterEach(async () => {
  await daemon?.stop();
  daemon = null;
});

describe("entities in status and search --explain (real daemon and CLI)", () => {
  it("shows the top entities with aliases, and the prompt's entities in explain", async () => {
    const home = tempDir("cortexd-home-");
    const ws = join(home, "ws");
    writeFiles(ws, entityFiles());
    daemon = await startDaemon({ home, config: { workspaces: [{ path: ws }] } });
    await waitUntil(async () => {
      const st = await runCliAsync(["status", "--json"], daemon!.env);
      return (JSON.parse(st.stdout).workspaces?.[0]?.topEntities ?? []).length > 0;
    }, 30_000);
    const json = JSON.parse((await runCliAsync(["status", "--json"], daemon.env)).stdout);
    const alice = json.workspaces[0].topEntities.find((e: { name: string }) => e.name === "Alice Chen");
    expect(alice.aliases).toEqual(["Alice"]);
    const text = await runCliAsync(["status"], daemon.env);
    expect(text.stdout).toMatch(/top entities: .*Alice Chen \(aka Alice\) \(\d+\)/);

    const search = await runCliAsync(["search", "--explain", "What is Alice up to?"], daemon.env);
    expect(search.code, search.stderr).toBe(0);
    // "Alice" and its alias "Alice Chen" (the only longer name starting with it).
    expect(search.stdout).toMatch(
      /entities in the prompt: (Alice, Alice Chen|Alice Chen, Alice); co-occurring, followed: Project Falcon/,
    );
    expect(search.stdout).toContain("memory/2026-03-16.md");
  });
});
