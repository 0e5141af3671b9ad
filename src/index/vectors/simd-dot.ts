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

const SIMD = 0xfd;
/** LEB128 of an unsigned integer. */
function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}
function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
}
const simd = (op: number, ...imm: number[]) => [SIMD, ...uleb(op), ...imm];
const get = (i: number) => [0x20, i];
const set = (i: number) => [0x21, i];
const tee = (i: number) => [0x22, i];
/** i32.const (signed LEB128; non-negative values). */
const i32c = (n: number) => [0x41, ...sleb(n)];
const I32_ADD = 0x6a;
const I32_SUB = 0x6b;
const BR_IF = 0x0d;
const load8x8s = (offset: number) => simd(0x01, 0, ...uleb(offset)); // v128.load8x8_s, align 1
const v128Load = (offset: number) => simd(0x00, 1, ...uleb(offset)); // align 2
const I32X4_DOT_I16X8 = simd(0xba);
const I32X4_ADD = simd(0xae);
const lane = (l: number) => simd(0x1b, l); // i32x4.extract_lane

/**
 * scan(codes, query, n, out): for each of n rows, out[r] = Σ codes[r]·query (i32), where a row is
 * `groups` × 8 int8 codes and the query `groups` × 8 int16; the groups are unrolled (the module
 * is made for one row length). Params 0 (row cursor), 1 (query), 2 (rows left), 3 (unused), 4
 * (output cursor); local 5 (v128 sum).
 */
function scanBody(groups: number): number[] {
  const row: number[] = [];
  for (let g = 0; g < groups; g++) {
    row.push(...get(0), ...load8x8s(8 * g), ...get(1), ...v128Load(16 * g), ...I32X4_DOT_I16X8);
    if (g > 0) row.push(...I32X4_ADD);
  }
  const code = [
    ...[0x02, 0x40], // block
    ...get(2),
    0x45, // i32.eqz
    ...[BR_IF, 0],
    ...[0x03, 0x40], // loop: rows
    ...row,
    ...set(5),
    ...get(4),
    ...get(5),
    ...lane(0),
    ...get(5),
    ...lane(1),
    I32_ADD,
    ...get(5),
    ...lane(2),
    I32_ADD,
    ...get(5),
    ...lane(3),
    I32_ADD,
    ...[0x36, 2, 0], // i32.store align 2^2, offset 0
    ...get(0),
    ...i32c(8 * groups),
    I32_ADD,
    ...set(0),
    ...get(4),
    ...i32c(4),
    I32_ADD,
    ...set(4),
    ...get(2),
    ...i32c(1),
    I32_SUB,
    ...tee(2),
    ...[BR_IF, 0],
    0x0b, // end rows
    0x0b, // end block
    0x0b, // end function
  ];
  const locals = [1, 1, 0x7b]; // 1 × v128
  return [...locals, ...code];
}

function section(id: number, bytes: number[]): number[] {
  return [id, ...uleb(bytes.length), ...bytes];
}
const name = (s: string) => [...uleb(s.length), ...Buffer.from(s, "utf8")];

/** The module's bytes for rows of `groups` × 8 codes: imports env.mem, exports scan. */
export function scanModuleBytes(groups: number): Uint8Array {
  const body = scanBody(groups);
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 5, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0]),
    ...section(2, [1, ...name("env"), ...name("mem"), 0x02, 0x00, 1]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name("scan"), 0x00, 0]),
    ...section(10, [1, ...uleb(body.length), ...body]),
  ]);
}

export type ScanFn = (rows: number, query: number, n: number, groups: number, out: number) => void;

/** The part of the WebAssembly API used here (Node's types for it come with the DOM library only). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Memory: new (d: { initial: number }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (m: object, imports: object) => { exports: Record<string, unknown> };
  validate(bytes: Uint8Array): boolean;
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

/** A WebAssembly memory of `pages` × 64 KiB (an ArrayBuffer-backed stand-in without WebAssembly). */
export function wasmMemory(pages: number): WasmMemory {
  if (wasm) return new wasm.Memory({ initial: pages });
  let buffer = new ArrayBuffer(pages * 65536);
  return {
    get buffer() {
      return buffer;
    },
    grow(more: number) {
      const bigger = new ArrayBuffer(buffer.byteLength + more * 65536);
      new Uint8Array(bigger).set(new Uint8Array(buffer));
      const was = buffer.byteLength / 65536;
      buffer = bigger;
      return was;
    },
  };
}

/** Instantiates the kernel for rows of `groups` × 8 codes on `memory`, or null when this runtime has no WebAssembly SIMD. */
export function simdScan(memory: WasmMemory, groups: number): ScanFn | null {
  const bytes = scanModuleBytes(groups);
  if (!wasm || !wasm.validate(bytes)) return null;
  try {
    const instance = new wasm.Instance(new wasm.Module(bytes), { env: { mem: memory } });
    return instance.exports.scan as ScanFn;
  } catch {
    return null;
  }
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
