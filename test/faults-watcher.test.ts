import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../src/index/db/db.js";
import { runCli } from "./helpers/cli.js";
import { startDaemon, waitUntil, type TestDaemon } from "./helpers/daemon.js";
import { dumpIndex, tempDir } from "./helpers/workspace.js";
import { readdirSync } from "node:fs";

const running: TestDaemon[] = [];
afterEach(async () => {
  for (const d of running.splice(0)) await d.stop();
});

const KW = { CORTEXD_EMBEDDING_PROVIDER: "none" };
/** CI creates 2,000 files at once (a few seconds); `CORTEXD_STORM_FILES=10000 npx vitest run test/faults-watcher.test.ts` is the full storm (~40 s here). */
const STORM = Number(process.env.CORTEXD_STORM_FILES ?? 2000);

/** Stops the daemon and compares its index with a clean `cortexd index` of the same files. */
async function expectCleanEquivalent(d: TestDaemon, root: string): Promise<void> {
  await d.call("index.sync", {});
  await d.stop();
  const dir = join(d.home, ".local/share/cortexd/indexes");
  const live = openDatabase(
    join(
      dir,
      readdirSync(dir).find((f) => f.endsWith(".sqlite"))!,
    ),
  );
  const cleanData = tempDir();
  const r = runCli(["index", "--workspace", root, "--data-dir", cleanData, "--json"], {
    ...KW,
    XDG_CONFIG_HOME: tempDir(),
  });
  expect(r.code, r.stderr).toBe(0);
  const cdir = join(cleanData, "indexes");
  const clean = openDatabase(join(cdir, readdirSync(cdir)[0]!));
  try {
    expect(dumpIndex(live.db)).toEqual(dumpIndex(clean.db));
  } finally {
    live.db.close();
    clean.db.close();
  }
}

async function watching(root: string): Promise<TestDaemon> {
  const d = await startDaemon({
    config: { workspaces: [{ path: root }], daemon: { debounceMs: 100, settleMs: 30 } },
    env: KW,
  });
  running.push(d);
  await d.call("index.sync", {});
  return d;
}

describe("watcher overload: every storm ends in a correct index (compared with a clean build)", () => {
  it(`${STORM.toLocaleString("en")} files created at once`, async () => {
    const root = tempDir("cortexd-storm-");
    mkdirSync(join(root, "memory", "bulk"), { recursive: true });
    const d = await watching(root);
    const t0 = performance.now();
    for (let i = 0; i < STORM; i++) {
      writeFileSync(
        join(root, "memory", "bulk", `n-${i}.md`),
        `# Note ${i}\n\n- stormword${i} is filed under batch ${i % 97}.\n`,
      );
    }
    await waitUntil(async () => (await d.call("cortex.status", {})).workspaces[0]!.files === STORM, 120_000, 250);
    console.log(`storm: ${STORM} files created and indexed in ${Math.round(performance.now() - t0)} ms`);
    expect((await d.call("memory.search", { query: `stormword${STORM - 1}` })).results[0]!.path).toBe(
      `memory/bulk/n-${STORM - 1}.md`,
    );
    await expectCleanEquivalent(d, root);
  }, 180_000);

  it("a rename storm: 300 files renamed back and forth, some twice, some into another folder", async () => {
    const root = tempDir("cortexd-rename-");
    mkdirSync(join(root, "memory", "a"), { recursive: true });
    mkdirSync(join(root, "memory", "b"), { recursive: true });
    for (let i = 0; i < 300; i++)
      writeFileSync(join(root, "memory", "a", `f-${i}.md`), `# F ${i}\n\n- renameword${i} moves around.\n`);
    const d = await watching(root);
    for (let i = 0; i < 300; i++)
      renameSync(join(root, "memory", "a", `f-${i}.md`), join(root, "memory", "b", `g-${i}.md`));
    for (let i = 0; i < 300; i += 2)
      renameSync(join(root, "memory", "b", `g-${i}.md`), join(root, "memory", "a", `h-${i}.md`));
    for (let i = 0; i < 300; i += 3) {
      const from = i % 2 === 0 ? join(root, "memory", "a", `h-${i}.md`) : join(root, "memory", "b", `g-${i}.md`);
      renameSync(from, join(root, "memory", `top-${i}.md`));
    }
    await waitUntil(
      async () => {
        const hit = (await d.call("memory.search", { query: "renameword297" })).results[0];
        return hit?.path === "memory/top-297.md";
      },
      30_000,
      100,
    );
    await expectCleanEquivalent(d, root);
  }, 60_000);

  it("an editor's atomic saves (write a temp file, rename it over the original), many in a row", async () => {
    const root = tempDir("cortexd-atomic-");
    const file = join(root, "MEMORY.md");
    writeFileSync(file, "# MEMORY\n\n- version 0 of the notes.\n");
    const d = await watching(root);
    for (let v = 1; v <= 40; v++) {
      const tmp = join(root, `.MEMORY.md.swp${v}`);
      writeFileSync(
        tmp,
        `# MEMORY\n\n${Array.from({ length: v }, (_, i) => `- atomicword${i} in version ${v}.`).join("\n")}\n`,
      );
      renameSync(tmp, file);
      if (v % 10 === 0) await new Promise((r) => setTimeout(r, 30));
    }
    await waitUntil(async () => (await d.call("memory.search", { query: "atomicword39" })).results.length > 0, 20_000);
    await expectCleanEquivalent(d, root);
  }, 60_000);
});
