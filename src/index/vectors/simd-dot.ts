/**
 * Integer dot products of one int16 query with every row of an int8 matrix, in WebAssembly SIMD
 * (i32x4.dot_i16x8_s) when the runtime has it, else in plain JavaScript: the same exact integers
 * either way. The module is assembled here from its instructions (no toolchain at runtime, no
 * binary in the repository); simd-dot.wat is its readable listing, and test/simd-dot-listing
 * checks that WABT assembles the listing to exactly these bytes.
 *
 * Rows are `groups` × 8 int8 codes (the tail beyond the real dimension is zero); the query is as
 * many int16 values. A sum is exact when |Σ| < 2³¹ (the lanes' adds wrap, so only the total must
 * fit): callers keep query values within ±queryRange(dims).
 */

import {
  I32,
  I32_MUL,
  i32Load,
  BLOCK,
  BR_IF,
  END,
  I32_EQZ,
  LOOP,
  V128,
  i32Store,
  I32_ADD,
  I32_SUB,
  get,
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

export { wasmMemory, type WasmMemory } from "./wasm-assemble.js";

/**
 * The largest |query value| for which no row of `dims` int8 codes (|c| ≤ 127) can take the sum
 * past int32: 32,767 up to 516 dims, then (2³¹ − 1) / (127 · dims) (16,512 at 1024 dims).
 */
export function queryRange(dims: number): number {
  return Math.min(32767, Math.floor((2 ** 31 - 1) / (127 * Math.max(1, dims))));
}

/** Bound on |float32 sum − exact| / (|q|·|x|) for dot products of up to `n` terms in any order: 2·γ_n, u = 2⁻²⁴, with room to spare. */
export function scanDotError(n: number): number {
  const u = 2 ** -24;
  return (2 * (n + 8) * u) / (1 - (n + 8) * u);
}

const load8x8s = (offset: number) => simd(0x01, 0, ...uleb(offset)); // v128.load8x8_s, align 1
const v128Load = (offset: number) => simd(0x00, 1, ...uleb(offset)); // align 2
const I32X4_DOT_I16X8 = simd(0xba);
const I32X4_ADD = simd(0xae);

/** Σ row·query of the row at local `row` (groups unrolled), left on the stack as a v128 of four partial sums. */
function rowDot(groups: number, row: number, query: number): number[] {
  const out: number[] = [];
  for (let g = 0; g < groups; g++) {
    out.push(...get(row), ...load8x8s(8 * g), ...get(query), ...v128Load(16 * g), ...I32X4_DOT_I16X8);
    if (g > 0) out.push(...I32X4_ADD);
  }
  return out;
}

/** Stores the sum of local `sum`'s four lanes at the address in local `out`. */
function storeLaneSum(out: number, sum: number): number[] {
  return [...get(out), ...get(sum), ...laneSum(sum), ...i32Store(2, 0)];
}

/** local += n. */
const bump = (local: number, n: number) => [...get(local), ...i32c(n), I32_ADD, ...set(local)];

/**
 * scan(codes, query, n, out): for each of n rows, out[r] = Σ codes[r]·query (i32), where a row is
 * `groups` × 8 int8 codes and the query `groups` × 8 int16; the groups are unrolled (the module
 * is made for one row length). Params 0 (row cursor), 1 (query), 2 (rows left), 3 (unused), 4
 * (output cursor); local 5 (v128 sum).
 */
function scanBody(groups: number): number[] {
  const code = [
    ...BLOCK,
    ...get(2),
    I32_EQZ,
    ...[BR_IF, 0],
    ...LOOP, // rows
    ...rowDot(groups, 0, 1),
    ...set(5),
    ...storeLaneSum(4, 5),
    ...bump(0, 8 * groups),
    ...bump(4, 4),
    ...get(2),
    ...i32c(1),
    I32_SUB,
    ...tee(2),
    ...[BR_IF, 0],
    END, // rows
    END, // block
    END, // function
  ];
  const locals = [1, 1, V128]; // 1 × v128
  return [...locals, ...code];
}

/**
 * gather(codes, query, slots, n, out): for each of n slot numbers s (int32) in `slots`, out[i] =
 * Σ codes[s]·query (i32) — the rows picked by a coarse pass, scored where they lie. Params 0
 * (the table's first row), 1 (query), 2 (slot cursor), 3 (slots left), 4 (output cursor); locals
 * 5 (v128 sum), 6 (the row's address).
 */
function gatherBody(groups: number): number[] {
  const code = [
    ...BLOCK,
    ...get(3),
    I32_EQZ,
    ...[BR_IF, 0],
    ...LOOP, // slots
    ...get(2),
    ...i32Load(2, 0),
    ...i32c(8 * groups),
    I32_MUL,
    ...get(0),
    I32_ADD,
    ...set(6),
    ...rowDot(groups, 6, 1),
    ...set(5),
    ...storeLaneSum(4, 5),
    ...bump(2, 4),
    ...bump(4, 4),
    ...get(3),
    ...i32c(1),
    I32_SUB,
    ...tee(3),
    ...[BR_IF, 0],
    END, // slots
    END, // block
    END, // function
  ];
  const locals = [2, 1, V128, 1, I32];
  return [...locals, ...code];
}

/** The gather module's bytes for rows of `groups` × 8 codes: imports env.mem, exports gather. */
export function gatherModuleBytes(groups: number): Uint8Array {
  return oneFunctionModule("gather", 5, gatherBody(groups));
}

export type GatherFn = (codes: number, query: number, slots: number, n: number, out: number) => void;

/** The gather kernel for rows of `groups` × 8 codes on `memory`, or null without WebAssembly SIMD. */
export function simdGather(memory: WasmMemory, groups: number): GatherFn | null {
  return instantiate<GatherFn>(gatherModuleBytes(groups), memory, "gather");
}

/** gather() in JavaScript (no SIMD), offsets in bytes as for the kernel: the same integers. */
export function jsGather(
  memory: WasmMemory,
  groups: number,
  codes: number,
  query: number,
  slots: number,
  n: number,
  out: number,
): void {
  const c8 = new Int8Array(memory.buffer);
  const q16 = new Int16Array(memory.buffer, query, groups * 8);
  const s32 = new Int32Array(memory.buffer, slots, n);
  const o32 = new Int32Array(memory.buffer, out, n);
  const stride = groups * 8;
  for (let i = 0; i < n; i++) {
    const r = codes + s32[i]! * stride;
    let s = 0;
    for (let j = 0; j < stride; j++) s += c8[r + j]! * q16[j]!;
    o32[i] = s;
  }
}

/** The module's bytes for rows of `groups` × 8 codes: imports env.mem, exports scan. */
export function scanModuleBytes(groups: number): Uint8Array {
  return oneFunctionModule("scan", 5, scanBody(groups));
}

export type ScanFn = (rows: number, query: number, n: number, groups: number, out: number) => void;

/** Instantiates the kernel for rows of `groups` × 8 codes on `memory`, or null when this runtime has no WebAssembly SIMD. */
export function simdScan(memory: WasmMemory, groups: number): ScanFn | null {
  return instantiate<ScanFn>(scanModuleBytes(groups), memory, "scan");
}

/** scan() in JavaScript (no SIMD), offsets in bytes as for the kernel: the same integers. */
export function jsScan(memory: WasmMemory, codes: number, query: number, n: number, groups: number, out: number): void {
  const c8 = new Int8Array(memory.buffer);
  const q16 = new Int16Array(memory.buffer, query, groups * 8);
  const o32 = new Int32Array(memory.buffer, out, n);
  const stride = groups * 8;
  for (let i = 0, r = codes; i < n; i++, r += stride) {
    let s = 0;
    for (let j = 0; j < stride; j++) s += c8[r + j]! * q16[j]!;
    o32[i] = s;
  }
}
