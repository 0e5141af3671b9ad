import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "vitest";
import { startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

let daemon: TestDaemon | null = null;
afterEach(async () => {
  await daemon?.stop();
  daemon = null;
});

const found = async (d: TestDaemon, query: string) =>
  ((await d.call("memory.search", { query })) as { results: { snippet: string }[] }).results.some((r) =>
    r.snippet.includes(query),
  );

describe("extraPaths naming a folder under a dot-directory (real daemon)", () => {
  it("is indexed at start and an edit to it is indexed live, inside the root or outside it", async () => {
    const home = tempDir("cortexd-home-");
    const ws = join(home, "ws");
    writeFiles(ws, { "MEMORY.md": "# Memory\n- root\n", ".notes/a.md": "- zebracorn first\n" });
    writeFiles(home, { ".dotnotes/sub/b.md": "- giraffeish first\n" });
    daemon = await startDaemon({
      home,
      config: { workspaces: [{ path: ws, extraPaths: [join(ws, ".notes"), join(home, ".dotnotes", "sub")] }] },
    });
    await waitUntil(async () => (await found(daemon!, "zebracorn")) && (await found(daemon!, "giraffeish")), 20_000);
    appendFileSync(join(ws, ".notes", "a.md"), "- okapiberry later\n");
    appendFileSync(join(home, ".dotnotes", "sub", "b.md"), "- quokkaplum later\n");
    await waitUntil(async () => (await found(daemon!, "okapiberry")) && (await found(daemon!, "quokkaplum")), 20_000);
  });
});
