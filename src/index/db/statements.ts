import type Database from "better-sqlite3";

/** Prepared statements by name (see `statements`). */
export type Statements<K extends string> = { readonly [P in K]: Database.Statement };

/**
 * The storage layer's one statement pattern: a repository declares its SQL once, by name, and
 * each statement is prepared on its first use and kept for the life of the connection.
 */
export function statements<K extends string>(db: Database.Database, sql: Readonly<Record<K, string>>): Statements<K> {
  const prepared = new Map<K, Database.Statement>();
  const out = {} as Record<K, Database.Statement>;
  for (const key of Object.keys(sql) as K[]) {
    Object.defineProperty(out, key, {
      enumerable: true,
      get() {
        let stmt = prepared.get(key);
        if (!stmt) prepared.set(key, (stmt = db.prepare(sql[key])));
        return stmt;
      },
    });
  }
  return Object.freeze(out);
}

/** True when the database has a table (or virtual table, index, view) of this name. */
export function tableExists(db: Database.Database, name: string): boolean {
  return !!db.prepare(`SELECT 1 FROM sqlite_master WHERE name = ?`).get(name);
}
