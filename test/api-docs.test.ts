/**
 * docs/api.md is the API's reference: every method of the protocol has its row, and every
 * parameter its method takes is named in that row. A method or parameter added without its doc
 * fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MethodParams } from "../src/rpc/protocol/params.js";
import { PACKAGE_ROOT } from "../src/version.js";

/** The table rows of docs/api.md by method: `| \`method\` | params | result |`. */
function documentedRows(): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of readFileSync(join(PACKAGE_ROOT, "docs", "api.md"), "utf8").split("\n")) {
    const m = /^\| `([a-z]+\.[a-zA-Z]+)` \| (.*?) \| /.exec(line);
    if (m) rows.set(m[1]!, m[2]!);
  }
  return rows;
}

/** The parameter names a method's schema takes (none for a passthrough or empty object). */
function paramNames(schema: unknown): string[] {
  const shape = (schema as { shape?: Record<string, unknown> }).shape;
  return shape ? Object.keys(shape) : [];
}

describe("docs/api.md", () => {
  const rows = documentedRows();

  it("has a row for every method of the protocol, and none for a method it lacks", () => {
    expect([...rows.keys()].sort()).toEqual(Object.keys(MethodParams).sort());
  });

  it("names every parameter of each method in its row", () => {
    const missing: string[] = [];
    for (const [method, schema] of Object.entries(MethodParams)) {
      const row = rows.get(method) ?? "";
      for (const name of paramNames(schema)) if (!row.includes(`\`${name}`)) missing.push(`${method}: ${name}`);
    }
    expect(missing).toEqual([]);
  });
});
