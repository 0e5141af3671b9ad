/**
 * The background integrity check of a large index (src/daemon/index-check.ts): a real child process
 * runs SQLite's quick_check on a real index file; damage it finds is handed on as corruption (the
 * daemon then moves the index aside and rebuilds it), a sound index is left alone, and a stopped
 * checker ends its child and reports nothing.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import pino from "pino";
import { generateWorkspace } from "../scripts/bench/generate.js";
import type { WorkspaceEngine } from "../src/engine/engine.js";
import { LaterIndexChecks } from "../src/daemon/index-check.js";
import { isCorruptionError, openIndexChecked } from "../src/index/db/open-checked.js";
import { openTestIndex, tempDir } from "./helpers/workspace.js";

async function builtIndex(): Promise<string> {
  const root = join(tempDir(), "ws");
  generateWorkspace(root, 40, 7);
  const t = openTestIndex(root, null);
  await t.indexer.sync();
  t.close();
  return t.dbPath;
}

/** A stand-in for the workspace the daemon holds: the checker reads its name, path and store. */
function workspace(dbPath: string): WorkspaceEngine {
  return { name: "ws", dbPath, store: {} } as unknown as WorkspaceEngine;
}

/** The child as the daemon runs it: the build's (the tests run the sources). */
const CHILD = resolve(import.meta.dirname, "../dist/src/daemon/index-check-child.js");

function checker(found: Error[]): LaterIndexChecks {
  return new LaterIndexChecks({
    logger: pino({ level: "silent" }),
    onDamaged: (_ws, e) => found.push(e),
    childScript: CHILD,
  });
}

describe("checking a large index after the daemon answers", () => {
  it("finds a garbage page SQLite opens past, and hands it on as corruption", async () => {
    const db = await builtIndex();
    // The chunks table's root page (a page of the middle of the file may be a free one, which no check reads).
    const sqlite = new Database(db, { readonly: true });
    const root = sqlite.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'chunks'").pluck().get() as number;
    const pageSize = sqlite.pragma("page_size", { simple: true }) as number;
    sqlite.close();
    const fd = openSync(db, "r+");
    writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, pageSize * (root - 1));
    closeSync(fd);
    const found: Error[] = [];
    const verdict = await checker(found).check(workspace(db));
    expect(verdict).not.toBe("ok");
    expect(found).toHaveLength(1);
    expect(isCorruptionError(found[0])).toBe(true);
    expect(found[0]!.message).toMatch(/quick_check/);
  }, 30_000);

  it("leaves a sound index alone", async () => {
    const db = await builtIndex();
    const found: Error[] = [];
    expect(await checker(found).check(workspace(db))).toBe("ok");
    expect(found).toEqual([]);
  }, 30_000);

  it("opens an index over the size limit unchecked and says it needs the check", async () => {
    const db = await builtIndex();
    const big = openIndexChecked(db, { quickCheck: true, quickCheckMaxBytes: 0 });
    expect(big.checkLater).toBe(true);
    big.opened.db.close();
    const small = openIndexChecked(db, { quickCheck: true, quickCheckMaxBytes: 1 << 30 });
    expect(small.checkLater).toBeUndefined();
    small.opened.db.close();
  }, 30_000);

  it("a stopped checker ends its check and reports nothing", async () => {
    const db = await builtIndex();
    const found: Error[] = [];
    const c = checker(found);
    const pending = c.check(workspace(db));
    c.stop();
    expect(await pending).toBeNull();
    expect(found).toEqual([]);
  }, 30_000);
});
