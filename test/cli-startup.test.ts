/**
 * The CLI starts like a shell tool: a command loads only what it needs. Checked on the real CLI
 * process by tracing the modules it resolves (test/helpers/module-trace.mjs).
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, appendFileSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_BUILDER_VERSION } from "../src/embed/builtin/build.js";
import { builtinModelPath, ensureBuiltinModel } from "../src/embed/builtin/ensure.js";
import { CLI, assertBuilt, isolatedEnv } from "./helpers/cli.js";
import { HOOK_MAIN } from "./helpers/hooks.js";
import { daemonsPerTest } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

const TRACE_HOOK = resolve(import.meta.dirname, "helpers/module-trace.mjs");

/** Heavy parts no daemon-backed command needs. */
const HEAVY = [
  /node_modules\/zod\//,
  /node_modules\/better-sqlite3\//,
  /node_modules\/sqlite-vec/,
  /node_modules\/node-llama-cpp\//,
  /\/src\/(engine|index|search)\//,
];

function traced(
  args: string[],
  env: Record<string, string>,
  opts: { entry?: string; input?: string } = {},
): { code: number | null; stdout: string; stderr: string; modules: string[] } {
  assertBuilt();
  const trace = join(tempDir("cortexd-trace-"), "modules.txt");
  const r = spawnSync(process.execPath, ["--import", TRACE_HOOK, opts.entry ?? CLI, ...args], {
    env: { ...process.env, CORTEXD_LOG_LEVEL: "warn", ...env, CORTEXD_TEST_MODULE_TRACE: trace },
    encoding: "utf8",
    timeout: 120_000,
    ...(opts.input !== undefined ? { input: opts.input } : {}),
  });
  const modules = existsSync(trace) ? readFileSync(trace, "utf8").split("\n").filter(Boolean) : [];
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, modules };
}

function heavyIn(modules: string[]): string[] {
  return [...new Set(modules.filter((m) => HEAVY.some((re) => re.test(m))))];
}

describe("CLI start-up loads only what the command needs", () => {
  const { daemonOn } = daemonsPerTest();

  it("--version loads no config schema, SQLite, model or index code", () => {
    const r = traced(["--version"], isolatedEnv(tempDir("cortexd-home-")));
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(r.modules.length).toBeGreaterThan(0);
    expect(heavyIn(r.modules)).toEqual([]);
  });

  it("status, search and recall through the daemon load none of it either", async () => {
    const root = tempDir("cortexd-ws-");
    writeFiles(root, { "MEMORY.md": "# Memory\n\n- The deploy pipeline uses blue-green releases.\n" });
    const d = await daemonOn(root);
    const status = traced(["status"], d.env);
    expect(status.stdout).toContain("running");
    expect(heavyIn(status.modules)).toEqual([]);
    const search = traced(["search", "deploy", "pipeline"], d.env);
    expect(search.code).toBe(0);
    expect(search.stdout).toContain("MEMORY.md");
    expect(heavyIn(search.modules)).toEqual([]);
    const recall = traced(["recall", "how do we deploy"], d.env);
    expect(recall.code).toBe(0);
    expect(recall.stdout).toContain("blue-green");
    expect(heavyIn(recall.modules)).toEqual([]);
  });

  it("a hook through the daemon loads no config schema, SQLite, JSON-RPC library or JSONC parser", async () => {
    const root = tempDir("cortexd-ws-");
    writeFiles(root, { "MEMORY.md": "# Memory\n\n- The deploy pipeline uses blue-green releases.\n" });
    const d = await daemonOn(root);
    const hook = traced(["pre-turn"], d.env, { entry: HOOK_MAIN, input: '{"prompt":"how do we deploy"}' });
    expect(hook.code).toBe(0);
    expect(JSON.parse(hook.stdout).context).toContain("blue-green");
    const lean = [
      ...HEAVY,
      /node_modules\/json-rpc-2\.0\//,
      /node_modules\/jsonc-parser\//,
      /\/src\/config\/(load|schema)\.js$/,
    ];
    expect([...new Set(hook.modules.filter((m) => lean.some((re) => re.test(m))))]).toEqual([]);
  });

  describe("index with the built-in model", () => {
    let model: string;
    beforeAll(async () => {
      model = await ensureBuiltinModel(join(os.tmpdir(), "cortexd-test-models", `builtin-v${BUILTIN_BUILDER_VERSION}`));
    }, 600_000);

    it("loads the model only when something needs embedding", () => {
      const home = tempDir("cortexd-home-");
      const env = isolatedEnv(home, { CORTEXD_EMBEDDING_PROVIDER: "auto" });
      const dest = builtinModelPath(join(home, ".local/share/cortexd/models"));
      mkdirSync(resolve(dest, ".."), { recursive: true });
      copyFileSync(model, dest);
      const root = tempDir("cortexd-ws-");
      writeFiles(root, { "MEMORY.md": "# Memory\n\n- The deploy pipeline uses blue-green releases.\n" });
      const loadsModel = (modules: string[]) => modules.some((m) => m.includes("/embed/builtin/fast-provider.js"));

      const first = traced(["-w", root, "index", "--json"], env);
      expect(first.code, first.stderr).toBe(0);
      expect(JSON.parse(first.stdout).reports[0]).toMatchObject({ added: 1, embedded: 1 });
      expect(loadsModel(first.modules)).toBe(true);

      const again = traced(["-w", root, "index", "--json"], env);
      expect(again.code, again.stderr).toBe(0);
      const out = JSON.parse(again.stdout);
      expect(out.reports[0]).toMatchObject({ added: 0, changed: 0, unchanged: 1, embedded: 0 });
      expect(out.embedding).toMatchObject({ state: "ready", source: "builtin" });
      expect(loadsModel(again.modules)).toBe(false);

      appendFileSync(join(root, "MEMORY.md"), "- Kafka retention is seven days.\n");
      const changed = traced(["-w", root, "index", "--json"], env);
      expect(changed.code, changed.stderr).toBe(0);
      expect(JSON.parse(changed.stdout).reports[0]).toMatchObject({ changed: 1, unchanged: 0, embedded: 1 });
      expect(loadsModel(changed.modules)).toBe(true);
      // The vectors are there: a search finds the new line by meaning as well as by word.
      const search = traced(["-w", root, "search", "kafka", "--json"], env);
      expect(JSON.parse(search.stdout).mode).toBe("hybrid");
    });
  });
});
