/**
 * The SIMD kernels' readable listings (src/index/vectors/simd-dot.wat, simd-gather.wat) are what simd-dot.ts emits:
 * WABT (the WebAssembly Binary Toolkit, a dev dependency) assembles the listing, expanded to the
 * row length, to exactly the emitted bytes, and decodes the emitted bytes to the listing's code.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import wabtInit from "wabt";
import { describe, expect, it } from "vitest";
import { gatherModuleBytes, scanModuleBytes } from "../src/index/vectors/simd-dot.js";

const listing = (file: string) => readFileSync(resolve(import.meta.dirname, "../src/index/vectors", file), "utf8");
const KERNELS = [
  { file: "simd-dot.wat", emit: scanModuleBytes },
  { file: "simd-gather.wat", emit: gatherModuleBytes },
];
const FEATURES = { simd: true };

/** The listing (written for 2 groups) for rows of `groups` × 8 codes: its group block once per further group. */
function listingFor(text: string, groups: number): string {
  const lines = text.split("\n");
  const first = lines.findIndex((l) => l.includes(";; group 1 "));
  const last = lines.findIndex((l) => l.includes(";; end of the groups"));
  const block = lines.slice(first + 1, last);
  const further = Array.from({ length: groups - 1 }, (_, i) =>
    block
      .map((l) =>
        l.includes("load8x8_s")
          ? l.replace("offset=8 ", `offset=${8 * (i + 1)} `)
          : l.replace("offset=16 ", `offset=${16 * (i + 1)} `),
      )
      .join("\n"),
  );
  const body = [...lines.slice(0, first), ...further, ...lines.slice(last)].join("\n");
  return body.replace(/i32\.const 16\n/, `i32.const ${8 * groups}\n`);
}

describe("the SIMD kernels' listings", () => {
  it("assemble to the emitted bytes, and the bytes decode to their code, for every row length tried", async () => {
    const wabt = await wabtInit();
    for (const { file, emit } of KERNELS)
      for (const groups of [1, 2, 3, 96]) {
        const parsed = wabt.parseWat(file, listingFor(listing(file), groups), FEATURES);
        const assembled = parsed.toBinary({ log: false, write_debug_names: false }).buffer;
        const emitted = emit(groups);
        const decode = (bytes: Uint8Array) =>
          wabt
            .readWasm(bytes, { readDebugNames: false, ...FEATURES })
            .toText({ foldExprs: false, inlineExport: false });
        expect(decode(emitted), `${file}, groups ${groups}`).toBe(decode(assembled));
        expect(Buffer.from(emitted).equals(Buffer.from(assembled)), `${file}, groups ${groups}`).toBe(true);
        parsed.destroy();
      }
  });
});
