import { renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SearchSchema } from "../src/config/schema.js";
import { IndexStore } from "../src/index/repos/store.js";
import { Searcher } from "../src/search/searcher.js";
import { indexedWorkspace, syncFromAnotherConnection } from "./helpers/workspace.js";
import { rawDb } from "./helpers/raw-db.js";
import { expectMetaInStep } from "./helpers/copies.js";
import { VisibilityRepo } from "../src/index/repos/visibility-repo.js";

/** A small random workspace: notes, daily logs, a transcript; some chunks annotated with importance. */
function randomFiles(seed: number): Record<string, string> {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const words = ["deploy", "kafka", "budget", "garden", "retro", "invoice", "latency", "backup", "kiwi", "sprint"];
  const line = () =>
    Array.from({ length: 4 + Math.floor(rnd() * 8) }, () => words[Math.floor(rnd() * words.length)]).join(" ");
  const files: Record<string, string> = {};
  for (let i = 0; i < 12; i++) {
    const lines = Array.from({ length: 3 + Math.floor(rnd() * 30) }, (_, j) => {
      const imp =
        rnd() < 0.15 ? ` <!-- ${rnd() < 0.5 ? "importance" : "IMPORTANCE"}: ${1 + Math.floor(rnd() * 10)} -->` : "";
      return `- ${line()}${imp}${j % 7 === 6 ? "\n\n## more" : ""}`;
    });
    const path = i % 3 === 0 ? `memory/2026-11-${String(10 + i).padStart(2, "0")}.md` : `memory/notes/n${i}.md`;
    files[path] = `# ${line()}\n\n${lines.join("\n")}\n`;
  }
  files["MEMORY.md"] = "# Memory\n\n- The office wifi password rotates monthly. <!-- importance: 8 -->\n";
  return files;
}

/** An indexed workspace; `warm`: its chunk metadata loaded as the daemon does (else read per lookup at first). */
async function indexed(files: Record<string, string>, warm = true) {
  const ws = await indexedWorkspace(files);
  if (warm) ws.store.warmChunkMeta();
  return ws;
}

function allIds(store: IndexStore): number[] {
  return (rawDb(store).prepare(`SELECT id FROM chunks ORDER BY id`).pluck().all() as number[]) ?? [];
}

describe("chunk metadata in memory", () => {
  it("says what the chunk rows say, on random workspaces, importance annotations included (before and after loading)", async () => {
    for (const seed of [1, 2, 3]) {
      const { store } = await indexed(randomFiles(seed), false);
      expectMetaInStep(store); // the first lookups: read per id
      expectMetaInStep(store); // then from the table in memory
      const annotated = [...store.chunkMeta(allIds(store)).values()].filter((m) => m.importance !== null);
      expect(annotated.length).toBeGreaterThan(0);
      store.close();
    }
  });

  it("follows this connection's edits, appends, renames and deletes", async () => {
    const { root, store, indexer } = await indexed(randomFiles(4));
    expectMetaInStep(store);
    writeFileSync(join(root, "memory/notes/n1.md"), "# Changed\n\n- now it says kiwi <!-- importance: 2 -->\n");
    writeFileSync(join(root, "memory/notes/new.md"), "# New\n\n- a new note about backups\n");
    rmSync(join(root, "memory/notes/n2.md"));
    renameSync(join(root, "memory/notes/n4.md"), join(root, "memory/notes/n4-moved.md"));
    await indexer.sync();
    expectMetaInStep(store);
    const paths = new Set([...store.chunkMeta(allIds(store)).values()].map((m) => m.path));
    expect(paths).toContain("memory/notes/n4-moved.md");
    expect(paths).not.toContain("memory/notes/n2.md");
    expect(paths).not.toContain("memory/notes/n4.md");
    store.close();
  });

  it("stays in step through rounds of edits, appends, deletes and re-adds of the same paths (ids freed and taken again out of order)", async () => {
    const files = randomFiles(6);
    const { root, store, indexer } = await indexed(files);
    const bySql = new VisibilityRepo(rawDb(store));
    let s = 11;
    const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
    const paths = Object.keys(files);
    const deleted = new Set<string>();
    for (let round = 0; round < 8; round++) {
      for (const path of paths) {
        const r = rnd();
        const full = join(root, path);
        if (deleted.has(path)) {
          if (r < 0.6) {
            writeFileSync(full, randomFiles(100 + round)[path] ?? files[path]!);
            deleted.delete(path);
          }
        } else if (r < 0.2) {
          rmSync(full);
          deleted.add(path);
        } else if (r < 0.45) {
          // An append keeps the file's earlier chunks and adds new ones with new ids.
          writeFileSync(
            full,
            `${files[path]!}\n## round ${round}\n\n- kiwi budget ${round} <!-- visibility: private -->\n`,
            {
              flag: "a",
            },
          );
        } else if (r < 0.6) {
          writeFileSync(full, randomFiles(200 + round)[path] ?? "# gone\n");
        }
      }
      await indexer.sync();
      expectMetaInStep(store);
      const spans = paths.map((path) => ({ path, from: 1, to: 1000 }));
      expect(store.chunks.meta.visibilitiesOfSpans(spans)).toEqual(bySql.ofSpans(spans));
    }
    store.close();
  });

  it("follows another process's write to the same index, and a rebuilt index", async () => {
    const { root, dbPath, store } = await indexed(randomFiles(5));
    expectMetaInStep(store);
    // Another connection (as another process would) re-indexes an edited file.
    writeFileSync(
      join(root, "MEMORY.md"),
      "# Memory\n\n- The office wifi password never rotates. <!-- importance: 3 -->\n",
    );
    await syncFromAnotherConnection(root, dbPath);
    expectMetaInStep(store);
    const memory = [...store.chunkMeta(allIds(store)).values()].filter((m) => m.path === "MEMORY.md");
    expect(memory.map((m) => m.importance)).toContain(3);
    store.close();
    // A rebuilt index (a new file at the path) is a new store: its own metadata.
    rmSync(dbPath);
    const rebuilt = await indexed({ "MEMORY.md": "# Memory\n\n- only this <!-- importance: 10 -->\n" });
    expectMetaInStep(rebuilt.store);
    rebuilt.store.close();
  });

  it("an importance annotation edited in a file changes the ranking at once, in a long-lived searcher", async () => {
    const { root, store, indexer } = await indexed({
      "memory/a.md": "- The office wifi password rotates monthly. <!-- importance: 9 -->\n",
      "memory/b.md": "- The office wifi password rotates monthly. <!-- importance: 1 -->\n",
      "memory/c.md": "- Gardening tomatoes compost notes.\n",
    });
    const searcher = new Searcher({ store, provider: null, config: SearchSchema.parse({}) });
    const first = await searcher.search({ query: "office wifi password" });
    expect(first.results[0]!.path).toBe("memory/a.md");
    writeFileSync(join(root, "memory/a.md"), "- The office wifi password rotates monthly. <!-- importance: 1 -->\n");
    writeFileSync(join(root, "memory/b.md"), "- The office wifi password rotates monthly. <!-- Importance: 10 -->\n");
    await indexer.sync();
    const second = await searcher.search({ query: "office wifi password" });
    expect(second.results[0]!.path).toBe("memory/b.md");
    store.close();
  });

  it("answers the visibilities of a file's lines from memory as the chunk rows say, and follows edits and other connections", async () => {
    const tags = ["", " <!-- visibility: private -->", " <!-- visibility: group:telegram:group:-100123 -->"];
    const log = (seed: number) => {
      let s = seed;
      const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
      const entries = Array.from(
        { length: 40 },
        (_, i) => `- ${i} deploy kafka budget garden retro invoice latency backup${tags[Math.floor(rnd() * 3)]}`,
      );
      return `# Log\n\n${entries.join("\n\n")}\n`;
    };
    const files = { ...randomFiles(5), "memory/2026-12-01.md": log(1), "memory/2026-12-02.md": log(2) };
    const { root, dbPath, store, indexer } = await indexed(files);
    const bySql = new VisibilityRepo(rawDb(store));
    const spansOf = (paths: string[]) =>
      paths.flatMap((path) =>
        Array.from({ length: 25 }, (_, i) => ({
          path,
          from: 1 + ((i * 7) % 90),
          to: 1 + ((i * 7) % 90) + (i % 6) * 4,
        })),
      );
    const check = (paths: string[]) => {
      const spans = [
        ...spansOf(paths),
        { path: "memory/none.md", from: 1, to: 9 },
        { path: paths[0]!, from: 9, to: 2 },
      ];
      const held = store.chunks.meta.visibilitiesOfSpans(spans);
      expect(held).not.toBeNull();
      expect(held).toEqual(bySql.ofSpans(spans));
      expect(store.visibility.ofSpans(spans)).toEqual(held);
      return held!;
    };
    const paths = [...Object.keys(files), "memory/notes/moved.md"];
    const seen = new Set(check(paths).flat());
    expect(seen).toEqual(new Set(["open", "private", "group:telegram:group:-100123"]));
    // This connection's writes: an entry's visibility changed, a file renamed, one deleted.
    writeFileSync(join(root, "memory/2026-12-01.md"), log(3));
    renameSync(join(root, "memory/notes/n1.md"), join(root, "memory/notes/moved.md"));
    rmSync(join(root, "memory/notes/n2.md"));
    await indexer.sync();
    check(paths);
    expect(store.visibility.ofSpans([{ path: "memory/notes/n1.md", from: 1, to: 99 }])).toEqual([[]]);
    // Another connection's commit.
    writeFileSync(join(root, "memory/2026-12-02.md"), log(4));
    await syncFromAnotherConnection(root, dbPath);
    check(paths);
    store.close();
  });
});
