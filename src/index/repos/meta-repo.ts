import type Database from "better-sqlite3";
import { statements } from "../db/statements.js";

/** The index's key/value facts (embedding identity, quantizer, chunking key, last sync…): the meta table. */
export class MetaRepo {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = statements(db, {
      metaGet: `SELECT value FROM meta WHERE key = ?`,
      metaSet: `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      metaDelete: `DELETE FROM meta WHERE key = ?`,
    });
  }

  getMeta(key: string): string | undefined {
    return (this.stmts.metaGet.get(key) as { value: string } | undefined)?.value;
  }

  setMeta(key: string, value: string): void {
    this.stmts.metaSet.run(key, value);
  }

  deleteMeta(key: string): void {
    this.stmts.metaDelete.run(key);
  }
}
