import { expect, it } from "vitest";
import type { WorkspaceStatus } from "../src/rpc/protocol.js";
import { mulberry32 } from "../src/util/prng.js";
import { daemonsPerTest, startDaemon, waitUntil } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

/**
 * A daemon started on a large index loads its keyword postings in the background; meanwhile it
 * answers `cortex.status` (saying the keyword index is loading) and searches (FTS5 ranks them,
 * with the same results), and once loaded status says the postings are in memory.
 */

const { daemonOn, track } = daemonsPerTest();

function corpus(files: number): Record<string, string> {
  const r = mulberry32(21);
  const vocab = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}q`);
  const out: Record<string, string> = {};
  for (let f = 0; f < files; f++) {
    const paras: string[] = [];
    for (let p = 0; p < 12; p++) {
      const words = Array.from({ length: 60 }, () => vocab[Math.floor(vocab.length * r() ** 3)]!);
      paras.push(words.join(" ") + ".");
    }
    out[`memory/notes/n${f}.md`] = `# Note ${f}\n\n${paras.join("\n\n")}\n`;
  }
  return out;
}

const keywordState = (w: WorkspaceStatus | undefined) => w?.keywordIndex?.state;

it("answers status and searches while the keyword postings load after a start, then holds them", async () => {
  const root = tempDir("cortexd-kwload-");
  writeFiles(root, corpus(1200));
  const config = { workspaces: [{ path: root }], embedding: { provider: "none" } };
  const first = await daemonOn(root);
  await waitUntil(
    async () => keywordState((await first.call("cortex.status", {})).workspaces[0]) === "memory",
    120_000,
  );
  const loaded = (await first.call("cortex.status", {})).workspaces[0]!.keywordIndex;
  expect(loaded).toMatchObject({ state: "memory" });
  expect(loaded?.state === "memory" && loaded.postings).toBeGreaterThan(100_000);
  const query = { query: "w1q w2q w3q", limit: 10 };
  const expected = (await first.call("memory.search", query)).results.map((h) => h.path + h.startLine);
  await first.stop();

  // A start on the built index: status is answered from the first call, while the postings load.
  const d = track(await startDaemon({ home: first.home, config }));
  const seen: string[] = [];
  let searchedWhileLoading = false;
  await waitUntil(
    async () => {
      const state = keywordState((await d.call("cortex.status", {})).workspaces[0]) ?? "none";
      if (seen.at(-1) !== state) {
        seen.push(state);
      }
      if (state === "loading" && !searchedWhileLoading) {
        const got = (await d.call("memory.search", query)).results.map((h) => h.path + h.startLine);
        expect(got).toEqual(expected);
        searchedWhileLoading = true;
      }
      return state === "memory";
    },
    120_000,
    1,
  );
  expect(seen).toContain("loading");
  expect(seen.at(-1)).toBe("memory");
  expect(searchedWhileLoading).toBe(true);
  const after = (await d.call("memory.search", query)).results.map((h) => h.path + h.startLine);
  expect(after).toEqual(expected);
}, 300_000);

it("says a keyword-only daemon loads no model, from its first answer on (during its first index)", async () => {
  const root = tempDir("cortexd-kwnone-");
  writeFiles(root, corpus(600));
  const d = track(await startDaemon({ config: { workspaces: [{ path: root }], embedding: { provider: "none" } } }));
  const st = await d.call("cortex.status", {});
  expect(st.embedding).toMatchObject({ state: "keyword-only", reason: 'embedding.provider is "none"' });
});
