import { createServer, type Server } from "node:net";
import { mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { linkDevZero, makeFifo, memoryPath } from "../scripts/bench/abuse-files.js";
import { ErrorCodes } from "../src/rpc/protocol.js";
import { daemonsPerTest, refusal } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

/**
 * A memory file that is not a regular file (issue #34): a FIFO, a Unix socket or a link to a device
 * where today's log or MEMORY.md should be. Every request that must write or read it is answered
 * with its own error code (-32010, not the generic -32603) and a message naming the file, what it is
 * and what to do; nothing waits and the daemon keeps serving.
 */

const { daemonOn } = daemonsPerTest();
const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** Replaces `path` by a listening Unix socket. */
async function makeSocket(path: string): Promise<void> {
  rmSync(path, { force: true });
  mkdirSync(dirname(path), { recursive: true });
  const server = createServer();
  servers.push(server);
  await new Promise<void>((r) => server.listen(path, r));
}

const kinds = [
  ["a FIFO", async (p: string) => makeFifo(p), /a FIFO/],
  ["a Unix socket", makeSocket, /a socket/],
] as const;

function workspace(): string {
  const root = tempDir();
  writeFiles(root, {
    "MEMORY.md": "# Memory\n\n- the release pipeline is owned by the heron team\n",
    "memory/2026-01-05.md": "# 2026-01-05\n\n- Sam baked a lemon drizzle cake for the team lunch on Friday.\n",
  });
  return root;
}

describe("a save into a memory file that is not a regular file", () => {
  for (const [what, make, named] of kinds) {
    it(`today's log or MEMORY.md as ${what}: memory.save and memory.capture answer -32010 naming the file; nothing else is held`, async () => {
      const root = workspace();
      const d = await daemonOn(root);
      await make(memoryPath(root));
      let e = await refusal(d.call("memory.save", { text: "the osprey returned to the harbour mast" }));
      expect(e.code, e.message).toBe(ErrorCodes.UnusableFile);
      expect(e.message).toContain(memoryPath(root));
      expect(e.message).toMatch(named);
      expect(e.message).toMatch(/nothing was written/);
      expect(e.message).toMatch(/replace it with a regular file/);

      e = await refusal(
        d.call("memory.capture", {
          session_id: "s1",
          messages: [
            { role: "user", content: "remember that the herons nest at the north lake" },
            { role: "assistant", content: "Noted: herons nest at the north lake." },
          ],
        }),
      );
      expect(e.code, e.message).toBe(ErrorCodes.UnusableFile);

      await make(join(root, "MEMORY.md"));
      e = await refusal(d.call("memory.save", { text: "the heron team owns the pipeline", target: "memory" }));
      expect(e.code, e.message).toBe(ErrorCodes.UnusableFile);
      expect(e.message).toContain(join(root, "MEMORY.md"));
      expect(e.message).toMatch(named);

      // The daemon keeps serving.
      expect((await d.call("memory.search", { query: "lemon drizzle cake" })).results.length).toBeGreaterThan(0);
    }, 60_000);
  }
});

describe("promotion with MEMORY.md that is not a regular file", () => {
  for (const [what, make, named] of [
    ...kinds,
    ["a link to /dev/zero", async (p: string) => linkDevZero(p), /a device|a symlink out of the workspace/],
  ] as const) {
    it(`MEMORY.md as ${what}: promote.list and promote.apply answer -32010 naming it`, async () => {
      const root = workspace();
      const d = await daemonOn(root);
      // Recalled often enough to be a promotion candidate (so both methods read MEMORY.md).
      for (const query of ["what cake did Sam bake?", "Sam lemon drizzle cake", "which cake for the team lunch, Sam?"])
        expect((await d.call("memory.recall", { query })).memory_count).toBeGreaterThan(0);
      await make(join(root, "MEMORY.md"));
      for (const method of ["promote.list", "promote.apply"] as const) {
        const e = await refusal(d.call(method, {}));
        expect(e.code, e.message).toBe(ErrorCodes.UnusableFile);
        expect(e.message).toContain("MEMORY.md");
        expect(e.message).toMatch(named);
      }
    }, 60_000);
  }
});
