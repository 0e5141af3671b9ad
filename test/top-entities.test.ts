/**
 * The top entities of `cortex.status` are counted off the request path (#37: the first status call
 * of a large never-asked daemon paid a 0.4–0.6 s count): a status answers at once, saying they are
 * being counted, and shows the latest count — the previous one while the index's change is recounted.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { countTopEntities, TopEntitiesKeeper, type CountTopEntities } from "../src/daemon/top-entities.js";
import { topEntities } from "../src/search/entity-names.js";
import { openTestIndex, tempDir, writeFiles, type TestIndex } from "./helpers/workspace.js";

const open: TestIndex[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

async function indexed(): Promise<TestIndex> {
  const root = tempDir();
  writeFiles(root, {
    "memory/2026-03-02.md": "# 2026-03-02\n\n- Alice Chen leads Project Falcon this quarter.\n",
    "memory/2026-03-09.md": "# 2026-03-09\n\n- Reviewed the Project Falcon budget with Alice Chen.\n",
    "memory/2026-03-16.md": "# 2026-03-16\n\n- In May, Project Falcon ships from the Lisbon office.\n",
  });
  const t = openTestIndex(root, null);
  open.push(t);
  await t.indexer.sync();
  return t;
}

/** The real count, held until the test lets it go: what a status sees while a count is running. */
function gatedCount(): { count: CountTopEntities; release: () => void; started: () => number } {
  const waiting: (() => void)[] = [];
  let started = 0;
  return {
    count: (ws, n) => {
      started++;
      return new Promise((done, fail) => waiting.push(() => countTopEntities(ws, n).then(done, fail)));
    },
    release: () => waiting.splice(0).forEach((go) => go()),
    started: () => started,
  };
}

const names = (r: { topEntities?: { name: string }[] }) => (r.topEntities ?? []).map((e) => e.name);

describe("top entities off the request path", () => {
  it("a status before the first count says they are being counted; after it, lists them; a change shows the previous list until recounted", async () => {
    const t = await indexed();
    const gate = gatedCount();
    const keeper = new TopEntitiesKeeper(gate.count, Date.now, 0); // recounts as soon as the index changed

    // Never counted: the answer comes at once, without them, saying so; one count runs, however often asked.
    expect(keeper.of(t)).toEqual({ topEntitiesCounting: true });
    expect(keeper.of(t)).toEqual({ topEntitiesCounting: true });
    expect(gate.started()).toBe(1);

    gate.release();
    await keeper.refresh(t);
    expect(names(keeper.of(t))).toEqual(expect.arrayContaining(["Alice Chen", "Project Falcon"]));
    expect(keeper.of(t).topEntitiesCounting).toBeUndefined();
    expect(gate.started()).toBe(1); // unchanged index: no recount

    // The index changes: the previous list is shown while the change is counted.
    writeFiles(t.root, {
      "memory/2026-03-20.md": "# 2026-03-20\n\n- Project Zephyr started with a kickoff.\n",
      "memory/2026-03-21.md": "# 2026-03-21\n\n- Reviewed the Project Zephyr budget.\n",
      "memory/2026-03-22.md": "# 2026-03-22\n\n- Project Zephyr hired two engineers.\n",
      "memory/2026-03-23.md": "# 2026-03-23\n\n- Project Zephyr ships in June.\n",
    });
    await t.indexer.sync();
    const during = keeper.of(t);
    expect(names(during).join()).not.toMatch(/Zephyr/);
    expect(names(during)).toContain("Alice Chen");
    expect(gate.started()).toBe(2);
    gate.release();
    await keeper.refresh(t);
    expect(names(keeper.of(t)).join()).toMatch(/Zephyr/);
  });

  it("the daemon's count runs in a worker thread on the index file and finds what the index's own reader finds", async () => {
    const t = await indexed();
    // The compiled module: its worker is dist/src/daemon/top-entities-worker.js (npm run build).
    const built = pathToFileURL(resolve(import.meta.dirname, "../dist/src/daemon/top-entities.js")).href;
    const dist = (await import(built)) as { countTopEntities: CountTopEntities };
    const viaWorker = await dist.countTopEntities(t, 5);
    const direct = topEntities(t.store.entities, 5).map(({ name, chunks, aliases }) => ({
      name,
      chunks,
      ...(aliases ? { aliases } : {}),
    }));
    expect(viaWorker).toEqual(direct);
    expect(viaWorker.map((e) => e.name)).toContain("Project Falcon");
  });
});
