import { closeDatabase, openDatabase } from "../index/db/db.js";
import { corruptionReason, isCorruptionError, quickCheckVerdict } from "../index/db/open-checked.js";
import { errorMessage } from "../util/error-message.js";

/**
 * A child process's one job (index-check.ts starts it): SQLite's quick_check of one index, on its
 * own read-only connection, printed as one JSON line `{"verdict": "ok" | what was found}` or
 * `{"error": …}` when the check could not run. A process, not a worker thread: the check is one
 * native call of up to a minute on a large index, and a stopping daemon must be able to end it.
 */
const dbPath = process.argv[2];
let out: { verdict: string } | { error: string };
try {
  if (!dbPath) throw new Error("usage: index-check-child <index.sqlite>");
  const { db } = openDatabase(dbPath, { readonly: true, loadVec: false });
  try {
    out = { verdict: quickCheckVerdict(db) };
  } finally {
    closeDatabase(db);
  }
} catch (e) {
  // SQLite refusing the file as damaged is a verdict too; anything else (busy, gone) is no verdict.
  out = isCorruptionError(e) ? { verdict: corruptionReason(e) } : { error: errorMessage(e) ?? String(e) };
}
process.stdout.write(`${JSON.stringify(out)}\n`);
