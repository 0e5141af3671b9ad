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
