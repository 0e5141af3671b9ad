import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { CommitWatch, dataVersionOf, dbGeneration } from "../src/index/db/db-generation.js";
import { tempDir } from "./helpers/workspace.js";

function twoConnections(): [Database.Database, Database.Database] {
  const path = join(tempDir(), "index.sqlite");
  const a = new Database(path);
  a.pragma("journal_mode = WAL");
  a.exec(`CREATE TABLE t (x INTEGER)`);
  return [a, new Database(path)];
}

describe("CommitWatch: changed by another connection since the load", () => {
  it("is changed before the first mark, then only after another connection commits", () => {
    const [mine, other] = twoConnections();
    const watch = new CommitWatch(mine);
    expect(watch.loaded).toBe(false);
    expect(watch.changed()).toBe(true);
    watch.mark();
    expect(watch.loaded).toBe(true);
    expect(watch.changed()).toBe(false);
    mine.exec(`INSERT INTO t VALUES (1)`); // this connection's own write: not a change it is told of
    expect(watch.changed()).toBe(false);
    other.exec(`INSERT INTO t VALUES (2)`);
    expect(watch.changed()).toBe(true);
    const now = watch.read();
    watch.mark(now);
    expect(watch.changed()).toBe(false);
    expect(watch.changed(now + 1)).toBe(true);
    other.close();
    mine.close();
  });

  it("marks the version read before a load: a commit after that read still counts", () => {
    const [mine, other] = twoConnections();
    const watch = new CommitWatch(mine);
    const before = watch.read();
    other.exec(`INSERT INTO t VALUES (1)`); // lands while the copy is being read
    watch.mark(before);
    expect(watch.changed()).toBe(true);
    other.close();
    mine.close();
  });

  it("dbGeneration moves on this connection's writes too", () => {
    const [mine, other] = twoConnections();
    const gen = dbGeneration(mine);
    const g0 = gen();
    mine.exec(`INSERT INTO t VALUES (1)`);
    const g1 = gen();
    expect(g1).not.toBe(g0);
    other.exec(`INSERT INTO t VALUES (2)`);
    expect(gen()).not.toBe(g1);
    other.close();
    mine.close();
  });

  it("a pin answers one read for the whole request; a newer pin and the release read again", () => {
    const [mine, other] = twoConnections();
    const watch = new CommitWatch(mine);
    watch.mark();
    const release = dataVersionOf(mine).pin();
    other.exec(`INSERT INTO t VALUES (1)`); // lands during the request: seen after it, not inside it
    expect(watch.changed()).toBe(false);
    const newer = dataVersionOf(mine).pin(); // a request that starts after the commit sees it
    expect(watch.changed()).toBe(true);
    watch.mark();
    newer();
    release();
    release(); // a second release is a no-op, not a release of someone else's pin
    expect(watch.changed()).toBe(false);
    other.exec(`INSERT INTO t VALUES (2)`); // no pin held: every read is fresh
    expect(watch.changed()).toBe(true);
    other.close();
    mine.close();
  });

  it("a pinned read does not run the statement: the versions it answers never go back", () => {
    const [mine, other] = twoConnections();
    const version = dataVersionOf(mine);
    const seen: number[] = [version.read()];
    const release = version.pin();
    for (let i = 0; i < 3; i++) {
      other.exec(`INSERT INTO t VALUES (${i})`);
      seen.push(version.read());
    }
    expect(new Set(seen.slice(1)).size).toBe(1);
    release();
    seen.push(version.read());
    expect(seen.at(-1)).not.toBe(seen[1]);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    other.close();
    mine.close();
  });
});
