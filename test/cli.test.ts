import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ensureTinyTestModel } from "./fixtures/embed/tiny-model.js";
import { isolatedEnv, runCli } from "./helpers/cli.js";
import { tempDir } from "./helpers/workspace.js";

/** A copy of the example workspace kept for the tests (examples/ is the README demo: users edit it). */
const EXAMPLE = resolve(import.meta.dirname, "fixtures/workspace");

describe("cortexd index / search (real CLI process)", () => {
  it("indexes the example workspace and finds memories, as text and as JSON", async () => {
    const home = tempDir();
    const ws = join(home, "ws");
    cpSync(EXAMPLE, ws, { recursive: true });
    const env = isolatedEnv(home, { CORTEXD_MODEL: await ensureTinyTestModel() });
    const idx = runCli(["index", "--workspace", ws], env);
    expect(idx.code, idx.stderr).toBe(0);
    expect(idx.stdout).toMatch(/7 added, 0 changed, 0 removed/);
    expect(idx.stdout).toMatch(/model: cortexd-tiny-test/);

    const again = runCli(["index", "--workspace", ws, "--json"], env);
    const report = JSON.parse(again.stdout).reports[0];
    expect(report).toMatchObject({ added: 0, changed: 0, unchanged: 7, embedded: 0 });

    const text = runCli(["search", "--workspace", ws, "why did the deploy fail on the build server"], env);
    expect(text.code, text.stderr).toBe(0);
    // The day's log that answers it is among the first hits (its exact place moves with its age:
    // recency is a tie-breaker against MEMORY.md's line about the build servers).
    const lines = text.stdout.split("\n");
    expect(lines[0]).toMatch(/^\d\.\d{3} \S+:\d+-\d+$/);
    expect(lines.filter((l) => /^\d\.\d{3} /.test(l)).slice(0, 2)).toContainEqual(
      expect.stringMatching(/^\d\.\d{3} memory\/2026-11-24\.md:\d+-\d+$/),
    );

    const json = runCli(["search", "--workspace", ws, "--json", "-n", "3", "invoice exports Monday"], env);
    const res = JSON.parse(json.stdout);
    expect(res.results.length).toBeLessThanOrEqual(3);
    expect(res.results[0]).toMatchObject({ path: "sessions/2026-11-27-session.jsonl", source: "transcript" });
    for (const r of res.results) {
      expect(Object.keys(r).sort()).toEqual([
        "endLine",
        "path",
        "score",
        "snippet",
        "source",
        "startLine",
        "textScore",
        "vectorScore",
      ]);
    }
  });

  it("works keyword-only and says so", () => {
    const home = tempDir();
    const ws = join(home, "ws");
    cpSync(EXAMPLE, ws, { recursive: true });
    const env = isolatedEnv(home, { CORTEXD_EMBEDDING_PROVIDER: "none" });
    const idx = runCli(["index", "--workspace", ws], env);
    expect(idx.code).toBe(0);
    expect(idx.stdout).toMatch(/keyword-only: embedding.provider is "none"/);
    const s = runCli(["search", "--workspace", ws, "--json", "sourdough"], env);
    expect(JSON.parse(s.stdout)).toMatchObject({ mode: "keyword", results: [{ path: "memory/2026-11-26.md" }] });
  });

  it("reports a broken configured model as an error, not a silent fallback", () => {
    const home = tempDir();
    const ws = join(home, "ws");
    cpSync(EXAMPLE, ws, { recursive: true });
    const bad = join(home, "bad.gguf");
    writeFileSync(bad, "not a model");
    const idx = runCli(["index", "--workspace", ws], isolatedEnv(home, { CORTEXD_MODEL: bad }));
    expect(idx.code).toBe(2);
    expect(idx.stdout).toMatch(/keyword-only: configured model .*bad\.gguf failed to load/);
    expect(idx.stdout).toMatch(/7 added/); // keyword index still built
  });

  it("bad input gets a clear error", () => {
    const home = tempDir();
    const env = isolatedEnv(home, { CORTEXD_EMBEDDING_PROVIDER: "none" });
    const missing = runCli(["index", "--workspace", join(home, "nope")], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/workspace root .*nope does not exist/);
    const badN = runCli(["search", "-n", "zero", "x", "--workspace", home], env);
    expect(badN.stderr).toMatch(/--limit must be a positive integer/);
    const cfgDir = join(home, ".config", "cortexd");
    cpSync(EXAMPLE, join(home, "ws"), { recursive: true });
    mkdirSync(cfgDir, { recursive: true });
    writeFileSync(join(cfgDir, "config.json"), `{ // comment ok\n "search": { "vectorWeight": 2 } }`);
    const cfg = runCli(["index"], env);
    expect(cfg.code).toBe(78);
    expect(cfg.stderr).toMatch(/search\.vectorWeight/);
  });
});
