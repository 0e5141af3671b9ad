import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

// The import boundaries and habits `npm run lint` enforces (eslint.config.js): each rule must fire on
// a deliberate violation, and stay quiet on the code it is meant to allow.
const eslint = new ESLint({ cwd: process.cwd() });

async function rulesHit(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe("lint rules", () => {
  it("the storage layer may not import the layers above it", async () => {
    const bad = `import { Searcher } from "../search/searcher.js";\nexport const s: typeof Searcher | null = null;\n`;
    expect(await rulesHit(bad, "src/index/violation.ts")).toContain("no-restricted-imports");
    const fine = `import { chunkHash } from "../util/hash.js";\nexport const h = chunkHash("x");\n`;
    expect(await rulesHit(fine, "src/index/fine.ts")).toEqual([]);
    // The wire protocol (a leaf) is the one thing above it the storage layer may use: its types.
    const wire = `import type { SyncReport } from "../rpc/protocol.js";\nexport type R = SyncReport;\n`;
    expect(await rulesHit(wire, "src/index/fine.ts")).toEqual([]);
    const server = `import type { MethodHandlers } from "../rpc/server.js";\nexport type H = MethodHandlers;\n`;
    expect(await rulesHit(server, "src/index/violation.ts")).toContain("no-restricted-imports");
    // the same import is fine one layer up
    expect(await rulesHit(bad, "src/engine/fine.ts")).toEqual([]);
  }, 60_000);

  it("the rooms: storage imports nothing above it, wherever it sits in its room (src/index/db/…)", async () => {
    const up = `import { Indexer } from "../../indexer/sync.js";\nexport const i: typeof Indexer | null = null;\n`;
    expect(await rulesHit(up, "src/index/db/violation.ts")).toContain("no-restricted-imports");
    const search = `import { Searcher } from "../../search/searcher.js";\nexport const s: typeof Searcher | null = null;\n`;
    expect(await rulesHit(search, "src/index/repos/violation.ts")).toContain("no-restricted-imports");
    const daemon = `import type { Daemon } from "../daemon/daemon.js";\nexport type D = Daemon;\n`;
    expect(await rulesHit(daemon, "src/index/violation.ts")).toContain("no-restricted-imports");
    const devices = `import { GitSync } from "../../multi-device/git-sync.js";\nexport const g = GitSync;\n`;
    expect(await rulesHit(devices, "src/index/keyword/violation.ts")).toContain("no-restricted-imports");
    // the rooms reach each other, and the wire protocol's types, freely
    const sibling = `import { KeywordPostings } from "../keyword/keyword-postings.js";\nexport const k = KeywordPostings;\n`;
    expect(await rulesHit(sibling, "src/index/repos/fine.ts")).toEqual([]);
    const wire = `import type { SyncReport } from "../../rpc/protocol.js";\nexport type R = SyncReport;\n`;
    expect(await rulesHit(wire, "src/index/db/fine.ts")).toEqual([]);
    const server = `import type { MethodHandlers } from "../../rpc/server.js";\nexport type H = MethodHandlers;\n`;
    expect(await rulesHit(server, "src/index/db/violation.ts")).toContain("no-restricted-imports");
  }, 60_000);

  it("the rooms: the indexer sits above the storage, below what serves or asks", async () => {
    const storage = `import { IndexStore } from "../index/repos/store.js";\nexport const s = IndexStore;\n`;
    expect(await rulesHit(storage, "src/indexer/fine.ts")).toEqual([]);
    const search = `import { Searcher } from "../search/searcher.js";\nexport const s = Searcher;\n`;
    expect(await rulesHit(search, "src/indexer/violation.ts")).toContain("no-restricted-imports");
    const daemon = `import type { Daemon } from "../daemon/daemon.js";\nexport type D = Daemon;\n`;
    expect(await rulesHit(daemon, "src/indexer/violation.ts")).toContain("no-restricted-imports");
    // no SQL of its own: a statement is a repository's job; store.transaction(fn) is the store's API
    const sql = `export function f(db: { prepare(s: string): unknown }) {\n  return db.prepare("SELECT 1");\n}\n`;
    expect(await rulesHit(sql, "src/indexer/violation.ts")).toContain("no-restricted-syntax");
    const tx = `export function f(store: { transaction(fn: () => void): void }) {\n  store.transaction(() => {});\n}\n`;
    expect(await rulesHit(tx, "src/indexer/fine.ts")).toEqual([]);
    const raw = `import Database from "better-sqlite3";\nexport const d = Database;\n`;
    expect(await rulesHit(raw, "src/indexer/violation.ts")).toContain("no-restricted-imports");
  }, 60_000);

  it("the rooms: search reads the storage and never imports the indexer", async () => {
    const indexer = `import { Indexer } from "../indexer/sync.js";\nexport const i = Indexer;\n`;
    expect(await rulesHit(indexer, "src/search/violation.ts")).toContain("no-restricted-imports");
    const deep = `import type { SyncReport } from "../../indexer/sync-report.js";\nexport type R = SyncReport;\n`;
    expect(await rulesHit(deep, "src/search/keyword/violation.ts")).toContain("no-restricted-imports");
    const storage = `import type { IndexStore } from "../index/repos/store.js";\nexport type S = IndexStore;\n`;
    expect(await rulesHit(storage, "src/search/fine.ts")).toEqual([]);
    // the engine runs syncs: the same import is fine there
    expect(await rulesHit(indexer, "src/engine/fine.ts")).toEqual([]);
  }, 60_000);

  it("refuses (err as Error).message in src, in favour of errorMessage()", async () => {
    const bad = `export function f(e: unknown): string {\n  return (e as Error).message;\n}\n`;
    expect(await rulesHit(bad, "src/util/violation.ts")).toContain("no-restricted-syntax");
    const fine = `import { errorMessage } from "./error-message.js";\nexport function f(e: unknown): string {\n  return errorMessage(e);\n}\n`;
    expect(await rulesHit(fine, "src/util/fine.ts")).toEqual([]);
  }, 60_000);

  it("refuses a file in src over 400 lines, blank lines and comments included", async () => {
    const lines = (n: number) =>
      Array.from({ length: n }, (_, i) =>
        i % 3 === 0 ? "" : i % 3 === 1 ? "// note" : `export const v${i} = ${i};`,
      ).join("\n") + "\n";
    expect(await rulesHit(lines(401), "src/util/violation.ts")).toContain("max-lines");
    expect(await rulesHit(lines(400), "src/util/fine.ts")).toEqual([]);
    // tests and scripts are not held to it
    expect(await rulesHit(lines(401), "test/fine.test.ts")).toEqual([]);
  }, 60_000);

  it("the wire protocol imports nothing in the project (zod and its own files only)", async () => {
    const bad = `import type { SearchResponse } from "../search/types.js";\nexport type R = SearchResponse;\n`;
    expect(await rulesHit(bad, "src/rpc/protocol.ts")).toContain("no-restricted-imports");
    const badInner = `import type { SyncReport } from "../../index/sync-report.js";\nexport type R = SyncReport;\n`;
    expect(await rulesHit(badInner, "src/rpc/protocol/violation.ts")).toContain("no-restricted-imports");
    const sibling = `import { x } from "../server.js";\nexport const y = x;\n`;
    expect(await rulesHit(sibling, "src/rpc/protocol/violation.ts")).toContain("no-restricted-imports");
    const builtin = `import { join } from "node:path";\nexport const j = join;\n`;
    expect(await rulesHit(builtin, "src/rpc/protocol/violation.ts")).toContain("no-restricted-imports");
    const fine = `import { z } from "zod";\nimport type { SearchHit } from "./memory.js";\nexport const s = z.string();\nexport type H = SearchHit;\n`;
    expect(await rulesHit(fine, "src/rpc/protocol/fine.ts")).toEqual([]);
    // the same import is fine outside the protocol
    expect(await rulesHit(bad, "src/rpc/fine.ts")).toEqual([]);
  }, 60_000);

  it("reads workspace and config files only through the regular-file reader (no readFile/readFileSync)", async () => {
    const bad = `import { readFileSync } from "node:fs";\nexport const t = readFileSync("/x/config.json", "utf8");\n`;
    expect(await rulesHit(bad, "src/config/violation.ts")).toContain("no-restricted-imports");
    const badAsync = `import { readFile } from "node:fs/promises";\nexport const t = readFile("/x/MEMORY.md");\n`;
    expect(await rulesHit(badAsync, "src/session/violation.ts")).toContain("no-restricted-imports");
    expect(await rulesHit(badAsync, "src/index/violation.ts")).toContain("no-restricted-imports");
    const fine = `import { readRegularText } from "../util/regular-file.js";\nexport const t = readRegularText("/x/MEMORY.md", { maxBytes: 1 });\n`;
    expect(await rulesHit(fine, "src/session/fine.ts")).toEqual([]);
    // the reader itself may
    expect(await rulesHit(bad, "src/util/regular-file.ts")).toEqual([]);
  }, 60_000);
});
