import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { daemonsPerTest, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { mulberry32 } from "../src/util/prng.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

/**
 * The daemon ranks keyword searches from postings it keeps in memory; a `cortexd search` with no
 * daemon asks FTS5. A user must get the same results either way — after edits, deletes and new
 * files the daemon took in while running.
 */

const { daemonOn } = daemonsPerTest();

const WORDS = "kayak lofoten walnut allergy budget meeting garden running runs tea coffee invoice".split(" ");

function notes(seed: number, n: number): Record<string, string> {
  const r = mulberry32(seed);
  const out: Record<string, string> = {};
  for (let f = 0; f < n; f++) {
    const lines = Array.from({ length: 3 }, () =>
      Array.from({ length: 4 + Math.floor(r() * 12) }, () => WORDS[Math.floor(r() * r() * WORDS.length)]!).join(" "),
    );
    out[`memory/notes/n${f}.md`] = `# Note ${f}\n\n${lines.map((l) => `- ${l}.`).join("\n")}\n`;
  }
  return out;
}

type Ranked = { path: string; startLine: number; keyword: number | undefined }[];

async function viaDaemon(d: TestDaemon, query: string): Promise<Ranked> {
  const r = await d.call("memory.search", { query, limit: 15, explain: true });
  return r.results.map((h) => ({ path: h.path, startLine: h.startLine, keyword: h.explain?.keyword }));
}

/** `cortexd search` in a process of its own, with no daemon to ask (another socket): FTS5 answers. */
function oneShot(d: TestDaemon, query: string): Ranked {
  const r = runCli(["search", query, "--json", "--explain", "--limit", "15"], {
    ...d.env,
    CORTEXD_SOCKET: join(tempDir(), "none.sock"),
  });
  expect(r.code, r.stderr).toBe(0);
  const res = JSON.parse(r.stdout) as {
    results: { path: string; startLine: number; explain?: Record<string, number> }[];
  };
  return res.results.map((h) => ({ path: h.path, startLine: h.startLine, keyword: h.explain?.keyword }));
}

describe("daemon keyword search from postings in memory", () => {
  it("ranks as a one-shot search does, through edits, deletes and new files", async () => {
    const root = tempDir();
    writeFiles(root, notes(1, 40));
    const d = await daemonOn(root);
    const queries = ["kayak budget", "running tea invoice", "walnut", "garden meeting coffee lofoten"];
    const same = async () => {
      for (const q of queries) expect(await viaDaemon(d, q)).toEqual(oneShot(d, q));
    };
    await same();
    const settled = async () => {
      for (const q of queries) if ((await viaDaemon(d, q)).some((h) => h.path === "memory/notes/n1.md")) return false;
      return (await viaDaemon(d, "zebrafish")).length === 1;
    };

    const next = notes(2, 40);
    for (let f = 0; f < 40; f += 4) writeFileSync(join(root, `memory/notes/n${f}.md`), next[`memory/notes/n${f}.md`]!);
    rmSync(join(root, "memory/notes/n1.md"));
    writeFiles(root, { "memory/notes/zz.md": "# New\n\n- kayak kayak invoice zebrafish.\n" });
    await waitUntil(settled, 20_000);
    await new Promise((r) => setTimeout(r, 300)); // any sync still running after the watcher's settle
    await same();
  }, 60_000);
});
