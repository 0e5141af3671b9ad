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

  it("an entered version answers only the request's own stretch of code: after its await, other code reads afresh", async () => {
    const [mine, other] = twoConnections();
    const watch = new CommitWatch(mine);
    watch.mark();
    const version = dataVersionOf(mine);
    version.enterFor(version.fresh());
    other.exec(`INSERT INTO t VALUES (1)`); // lands during the request: seen after it, not inside it
    expect(watch.changed()).toBe(false);
    await Promise.resolve(); // the request awaits: the next code to run is not the request's
    expect(watch.changed()).toBe(true);
    other.close();
    mine.close();
  });

  it("a fresh read that finds another connection's commit tells the listeners, once per new version", () => {
    const [mine, other] = twoConnections();
    const version = dataVersionOf(mine);
    const heard: number[] = [];
    version.onCommit((v) => heard.push(v));
    const v0 = version.fresh();
    mine.exec(`INSERT INTO t VALUES (1)`); // this connection's own write: no commit to hear
    version.fresh();
    expect(heard).toEqual([]);
    other.exec(`INSERT INTO t VALUES (2)`);
    const v1 = version.fresh();
    version.fresh();
    expect(v1).not.toBe(v0);
    expect(heard).toEqual([v1]);
    other.close();
    mine.close();
  });
});
