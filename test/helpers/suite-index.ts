import { afterAll, beforeAll } from "vitest";
import { builtinProvider } from "./models.js";
import { openTestIndex, tempDir, writeFiles, type TestIndex } from "./workspace.js";

/**
 * A real index of `files` for one describe block: written and synced before its tests, with the
 * built-in model (hybrid) or none (keyword), closed after them. Returns the index's getter.
 */
export function suiteIndex(files: Record<string, string>, mode: "hybrid" | "keyword"): () => TestIndex {
  let t: TestIndex | undefined;
  beforeAll(async () => {
    const root = tempDir();
    writeFiles(root, files);
    t = openTestIndex(root, mode === "hybrid" ? await builtinProvider() : null);
    await t.indexer.sync();
  }, 120_000);
  afterAll(() => t?.close());
  return () => t!;
}
