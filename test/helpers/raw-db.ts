import type Database from "better-sqlite3";
import type { IndexStore } from "../../src/index/repos/store.js";

/**
 * The connection behind an IndexStore, for tests that check the tables themselves (src never
 * reaches it: the store's repositories run the SQL).
 */
export function rawDb(store: IndexStore): Database.Database {
  return (store as unknown as { db: Database.Database }).db;
}
