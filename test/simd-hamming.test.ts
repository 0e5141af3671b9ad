/**
 * The Hamming kernel (src/index/vectors/simd-hamming.ts): its readable listing is what it emits
 * (WABT assembles the listing, expanded to the row length, to exactly the emitted bytes), and the
 * SIMD kernel and the JavaScript path give the same distances and histogram.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import wabtInit from "wabt";
import { describe, expect, it } from "vitest";
import { hammingModuleBytes, jsHamming, simdHamming } from "../src/index/vectors/simd-hamming.js";
import { wasmMemory } from "../src/index/vectors/wasm-assemble.js";
import { mulberry32 } from "../src/util/prng.js";

const LISTING = readFileSync(resolve(import.meta.dirname, "../src/index/vectors/simd-hamming.wat"), "utf8");
const FEATURES = { simd: true };

/** The listing (written for 2 groups) for rows of `groups` × 16 bytes. */
function listingFor(groups: number): string {
  const lines = LISTING.split("\n");
  const between = (from: string, to: string) => {
    const a = lines.findIndex((l) => l.includes(from));
    const b = lines.findIndex((l) => l.includes(to));
    return [a, b] as const;
  };
  const expand = (from: string, to: string, text: string[]) => {
    const [a, b] = between(from, to);
    const block = lines.slice(a + 1, b);
    const further = Array.from({ length: groups - 1 }, (_, i) =>
      block.map((l) => l.replace("offset=16 ", `offset=${16 * (i + 1)} `).replace("$q1", `$q${i + 1}`)),
    ).flat();
    return [...text.slice(0, text.indexOf(lines[a]!) + 1), ...further, ...text.slice(text.indexOf(lines[b]!))];
  };
  let out = expand(";; query group 1", ";; end of the query groups", lines);
  out = expand(";; row group 1", ";; end of the row groups", out);
  const q1 = out.findIndex((l) => l.includes("(local $q1 v128)"));
  const locals = Array.from({ length: groups - 1 }, (_, i) => `    (local $q${i + 1} v128)`);
  out = [...out.slice(0, q1), ...locals, ...out.slice(q1 + 1)];
  return out.join("\n").replace(/i32\.const 32\n/, `i32.const ${16 * groups}\n`);
}

describe("the Hamming kernel", () => {
  it("assembles from its listing to the emitted bytes, for every row length tried", async () => {
    const wabt = await wabtInit();
    for (const groups of [1, 2, 3, 8]) {
      const parsed = wabt.parseWat("simd-hamming.wat", listingFor(groups), FEATURES);
      const assembled = parsed.toBinary({ log: false, write_debug_names: false }).buffer;
      const emitted = hammingModuleBytes(groups);
      const decode = (bytes: Uint8Array) =>
        wabt.readWasm(bytes, { readDebugNames: false, ...FEATURES }).toText({ foldExprs: false, inlineExport: false });
      expect(decode(emitted), `groups ${groups}`).toBe(decode(assembled));
      expect(Buffer.from(emitted).equals(Buffer.from(assembled)), `groups ${groups}`).toBe(true);
      parsed.destroy();
    }
  });

  it("gives the same distances and histogram as the JavaScript path", () => {
    for (const groups of [1, 3, 8]) {
      const n = 777;
      const rowBytes = 16 * groups;
      const histBytes = (128 * groups + 2) * 4;
      const layout = { query: 0, hist: rowBytes, dist: rowBytes + histBytes, rows: rowBytes + histBytes + 2 * n + 14 };
      const run = (simd: boolean) => {
        const memory = wasmMemory(2);
        const u32 = new Uint32Array(memory.buffer);
        const r2 = mulberry32(groups);
        for (let i = layout.rows / 4; i < layout.rows / 4 + (n * rowBytes) / 4; i++) u32[i] = (r2() * 2 ** 32) >>> 0;
        for (let i = 0; i < rowBytes / 4; i++) u32[i] = (r2() * 2 ** 32) >>> 0;
        const fn = simd ? simdHamming(memory, groups) : null;
        if (simd) expect(fn, "this runtime has WebAssembly SIMD").not.toBeNull();
        if (fn) fn(layout.rows, layout.query, n, layout.dist, layout.hist);
        else jsHamming(memory, groups, layout.rows, layout.query, n, layout.dist, layout.hist);
        return {
          dist: Array.from(new Uint16Array(memory.buffer, layout.dist, n)),
          hist: Array.from(new Uint32Array(memory.buffer, layout.hist, 128 * groups + 2)),
        };
      };
      const a = run(true);
      const b = run(false);
      expect(a.dist).toEqual(b.dist);
      expect(a.hist).toEqual(b.hist);
      expect(a.hist.reduce((s, x) => s + x, 0)).toBe(n);
      // Random bits: distances spread around half the bits.
      const mean = a.dist.reduce((s, x) => s + x, 0) / n;
      expect(Math.abs(mean - 64 * groups)).toBeLessThan(8 * groups);
    }
  });
});
