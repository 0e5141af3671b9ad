/**
 * Hamming distances of one sign code to every row of a table of sign codes, in WebAssembly SIMD
 * (v128.xor, i8x16.popcnt) when the runtime has it, else in plain JavaScript: the same integers
 * either way. Each distance is stored as a uint16 and counted in a histogram (hist[d] += 1), so
 * a caller finds the cut-off of its best few thousand without sorting a million distances.
 *
 * A row is `groups` × 16 bytes (128 sign bits each; bits past the real dimension are zero in the
 * rows and in the query). The per-byte counts are summed in uint8 lanes across the groups, so a
 * row has at most MAX_HAMMING_GROUPS groups (3,968 dimensions). simd-hamming.wat is the kernel's
 * readable listing; test/simd-hamming.test.ts checks that WABT assembles it to exactly these bytes.
 */
import {
  BLOCK,
  BR_IF,
  END,
  I32,
  I32_ADD,
  I32_EQZ,
  I32_SHL,
  I32_SUB,
  LOOP,
  V128,
  get,
  i32Load,
  i32Store,
  i32Store16,
  i32c,
  instantiate,
  laneSum,
  oneFunctionModule,
  set,
  simd,
  tee,
  uleb,
  type WasmMemory,
} from "./wasm-assemble.js";
import { popcount } from "../../util/popcount.js";

/** Groups of 16 bytes a row may have: 8 bits a byte, summed in uint8 lanes over the groups (31 × 8 ≤ 255). */
export const MAX_HAMMING_GROUPS = 31;

const v128Load = (offset: number) => simd(0x00, 4, ...uleb(offset)); // align 2^4
const V128_XOR = simd(0x51);
const I8X16_POPCNT = simd(0x62);
const I8X16_ADD = simd(0x6e);
const I16X8_EXTADD_PAIRWISE_I8X16_U = simd(0x7d);
const I32X4_EXTADD_PAIRWISE_I16X8_U = simd(0x7f);

// Params: 0 row cursor, 1 query, 2 rows left, 3 distance cursor, 4 histogram. Locals: 5 d, 6 the
// histogram slot's address, 7 the row's byte counts, 8… the query's groups.
const ROW = 0;
const QUERY = 1;
const ROWS = 2;
const DIST = 3;
const HIST = 4;
const D = 5;
const SLOT = 6;
const ACC = 7;
const Q0 = 8;

function hammingBody(groups: number): number[] {
  const loadQuery: number[] = [];
  const row: number[] = [];
  for (let g = 0; g < groups; g++) {
    loadQuery.push(...get(QUERY), ...v128Load(16 * g), ...set(Q0 + g));
    row.push(...get(ROW), ...v128Load(16 * g), ...get(Q0 + g), ...V128_XOR, ...I8X16_POPCNT);
    if (g > 0) row.push(...I8X16_ADD);
  }
  const code = [
    ...BLOCK,
    ...get(ROWS),
    I32_EQZ,
    ...[BR_IF, 0],
    ...loadQuery,
    ...LOOP, // rows
    ...row,
    ...I16X8_EXTADD_PAIRWISE_I8X16_U,
    ...I32X4_EXTADD_PAIRWISE_I16X8_U,
    ...tee(ACC),
    ...laneSum(ACC),
    ...set(D),
    // dist[r] = d
    ...get(DIST),
    ...get(D),
    ...i32Store16(1, 0),
    // hist[d] += 1
    ...get(HIST),
    ...get(D),
    ...i32c(2),
    I32_SHL,
    I32_ADD,
    ...tee(SLOT),
    ...get(SLOT),
    ...i32Load(2, 0),
    ...i32c(1),
    I32_ADD,
    ...i32Store(2, 0),
    // next row
    ...get(ROW),
    ...i32c(16 * groups),
    I32_ADD,
    ...set(ROW),
    ...get(DIST),
    ...i32c(2),
    I32_ADD,
    ...set(DIST),
    ...get(ROWS),
    ...i32c(1),
    I32_SUB,
    ...tee(ROWS),
    ...[BR_IF, 0],
    END, // rows
    END, // block
    END, // function
  ];
  const locals = [2, 2, I32, 1 + groups, V128];
  return [...locals, ...code];
}

/** The module's bytes for rows of `groups` × 16 bytes: imports env.mem, exports hamming. */
export function hammingModuleBytes(groups: number): Uint8Array {
  return oneFunctionModule("hamming", 5, hammingBody(groups));
}

/** hamming(rows, query, n, dist, hist): byte offsets into the memory; rows of the module's length. */
export type HammingFn = (rows: number, query: number, n: number, dist: number, hist: number) => void;

/** The kernel for rows of `groups` × 16 bytes on `memory`, or null when this runtime has no WebAssembly SIMD. */
export function simdHamming(memory: WasmMemory, groups: number): HammingFn | null {
  if (groups < 1 || groups > MAX_HAMMING_GROUPS) return null;
  return instantiate<HammingFn>(hammingModuleBytes(groups), memory, "hamming");
}

/** hamming() in JavaScript (no SIMD), offsets in bytes as for the kernel: the same integers. */
export function jsHamming(
  memory: WasmMemory,
  groups: number,
  rows: number,
  query: number,
  n: number,
  dist: number,
  hist: number,
): void {
  const W = 4 * groups;
  const u32 = new Uint32Array(memory.buffer);
  const d16 = new Uint16Array(memory.buffer, dist, n);
  const h32 = new Uint32Array(memory.buffer, hist);
  const q = u32.subarray(query >>> 2, (query >>> 2) + W);
  for (let i = 0, o = rows >>> 2; i < n; i++, o += W) {
    let d = 0;
    for (let w = 0; w < W; w++) d += popcount(u32[o + w]! ^ q[w]!);
    d16[i] = d;
    h32[d]!++;
  }
}
