import { cpSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultNamespace } from "../src/workspace/namespace.js";
import { writeConfig } from "./helpers/daemon.js";
import { isolatedEnv, runCli } from "./helpers/cli.js";
import { tempDir } from "./helpers/workspace.js";

const EXAMPLE = resolve(import.meta.dirname, "fixtures/workspace");

interface IndexReport {
  namespace: string;
  added: number;
  unchanged: number;
}

/** `cortexd index --json` with the config naming the workspace as `path` (a real CLI process). */
function indexWith(home: string, path: string, extra: Record<string, unknown> = {}, cwd?: string): IndexReport {
  writeConfig(home, { workspaces: [{ path, ...extra }] });
  const r = runCli(
    ["index", "--json"],
    isolatedEnv(home, { CORTEXD_EMBEDDING_PROVIDER: "none" }),
    undefined,
    cwd ? { cwd } : {},
  );
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).reports[0] as IndexReport;
}

describe("one workspace, one namespace, however its root is written (real CLI, fresh HOME)", () => {
  it("a trailing slash, ~, ./.. and a symlinked root all use the same index", () => {
    const home = tempDir("cortexd-home-");
    const ws = join(home, "ws");
    cpSync(EXAMPLE, ws, { recursive: true });
    symlinkSync(ws, join(home, "link"));
    const first = indexWith(home, ws);
    expect(first.added).toBe(7);
    for (const spelling of ["~/ws/", "~/ws", `${ws}/`, "~/./other/../ws", "~/link", "~/link/", "ws"]) {
      const again = indexWith(home, spelling, {}, home);
      expect({ spelling, namespace: again.namespace, added: again.added, unchanged: again.unchanged }).toEqual({
        spelling,
        namespace: first.namespace,
        added: 0,
        unchanged: 7,
      });
    }
    // -w with another spelling selects the configured workspace (and its index)
    const env = isolatedEnv(home, { CORTEXD_EMBEDDING_PROVIDER: "none" });
    const viaFlag = runCli(["index", "--json", "-w", "~/link/"], env);
    expect(viaFlag.code, viaFlag.stderr).toBe(0);
    expect(JSON.parse(viaFlag.stdout).reports[0]).toMatchObject({ namespace: first.namespace, added: 0 });
  });

  it("reuses an index made under another spelling of the root (an older version's trailing-slash namespace)", () => {
    const home = tempDir("cortexd-home-");
    const ws = join(home, "ws");
    cpSync(EXAMPLE, ws, { recursive: true });
    mkdirSync(join(home, "elsewhere"));
    // What an earlier cortexd made of `"~/ws/"`: the namespace hashed the path with its slash.
    const older = defaultNamespace(`${ws}/`);
    expect(older).not.toBe(defaultNamespace(ws));
    expect(indexWith(home, "~/ws/", { name: older }).added).toBe(7);
    writeFileSync(join(ws, "memory", "2026-12-01.md"), "- a new note\n");
    const now = indexWith(home, "~/ws");
    expect(now).toMatchObject({ namespace: older, added: 1, unchanged: 7 });
    const status = runCli(["status", "--json"], isolatedEnv(home, { CORTEXD_EMBEDDING_PROVIDER: "none" }));
    expect(JSON.parse(status.stdout).workspaces).toEqual([
      expect.objectContaining({ name: older, root: ws, indexed: true, files: 8 }),
    ]);
  });
});
