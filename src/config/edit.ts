import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { applyEdits, modify } from "jsonc-parser";
import { parseConfigText, validateConfig } from "./load.js";
import { readConfigTextIfExists } from "./read-config.js";

/**
 * Sets keys in the config file, keeping its comments and formatting (jsonc-parser edits). The result
 * is validated before it replaces the file (atomically); a value of undefined removes the key.
 */
export function editConfigFile(file: string, changes: { path: (string | number)[]; value: unknown }[]): void {
  let text = readConfigTextIfExists(file) ?? "{\n}\n";
  for (const c of changes) {
    const edits = modify(text, c.path, c.value, { formattingOptions: { insertSpaces: true, tabSize: 2 } });
    text = applyEdits(text, edits);
  }
  validateConfig(parseConfigText(text, file), file);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, file);
}
