import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { assertBuilt } from "./helpers/cli.js";
import { hasSource, importCycles } from "./helpers/import-cycles.js";

/**
 * No value import cycles in src/ or scripts/ (#36): a cycle works only while no module reads the
 * other's values before it has run. Shared values go to a leaf file both import instead. Read from the
 * compiled files, where tsc has dropped the type-only imports.
 */
const ROOT = resolve(import.meta.dirname, "..");

describe("value import cycles", () => {
  it("there are none among the compiled sources and scripts", () => {
    assertBuilt();
    expect(importCycles(join(ROOT, "dist"), hasSource(ROOT))).toEqual([]);
  });

  it("a cycle (direct, through a third file, or by re-export) is found; a type-only import is not one", () => {
    const dir = mkdtempSync(join(tmpdir(), "cortexd-cycles-"));
    try {
      mkdirSync(join(dir, "sub"));
      const put = (f: string, text: string) => writeFileSync(join(dir, f), text);
      put("a.js", 'import { b } from "./sub/b.js";\nexport const a = () => b;\n');
      put("sub/b.js", 'import { a } from "../a.js";\nexport const b = 1;\nexport const c = a;\n');
      put("c.js", 'export { d } from "./d.js";\nexport const c = 1;\n');
      put("d.js", 'import "./e.js";\nexport const d = 1;\n');
      put("e.js", 'import {\n  c,\n} from "./c.js";\nexport const e = c;\n');
      // What tsc emits for `import type` — nothing — and a dynamic import: neither is a cycle.
      put("f.js", 'export const f = () => import("./g.js");\n');
      put("g.js", 'import { f } from "./f.js";\nexport const g = f;\n');
      expect(importCycles(dir)).toEqual([
        ["a.js", "sub/b.js"],
        ["c.js", "d.js", "e.js"],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
