/**
 * The dot products of one query with every row of a float32 matrix, in WebAssembly SIMD
 * (f32x4, two accumulators) when the runtime has it, else in plain JavaScript. The module is
 * assembled here from its instruction listing (no toolchain, no binary in the repository).
 *
 * Rows are `stride` floats apart, `stride` a multiple of 8 (the tail beyond the real dimension
 * is zero). The sums are float32 in an order of their own, so each differs from the exactly
 * rounded dot product by at most SCAN_DOT_ERROR × |q|·|x| (callers verify the result exactly).
 */

/** Bound on |scanned − exact| / (|q|·|x|) for rows of up to 1,024 floats: γ_n = n·u/(1 − n·u), u = 2⁻²⁴, with room to spare. */
export function scanDotError(stride: number): number {
  const u = 2 ** -24;
  return (2 * (stride + 8) * u) / (1 - (stride + 8) * u);
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
const simd = (op: number, ...imm: number[]) => [SIMD, ...uleb(op), ...imm];
const get = (i: number) => [0x20, i];
const set = (i: number) => [0x21, i];
const tee = (i: number) => [0x22, i];
const i32 = (n: number) => [0x41, n]; // small non-negative constants only
const I32_ADD = 0x6a;
const I32_SUB = 0x6b;
const BR_IF = 0x0d;
const F32_ADD = 0x92;
const v128Load = (offset: number) => simd(0x00, 2, ...uleb(offset)); // align 2^2
const F32X4_MUL = simd(0xe6);
const F32X4_ADD = simd(0xe4);
const lane = (l: number) => simd(0x1f, l); // f32x4.extract_lane

/**
 * scan(rows, query, n, groups, out): for each of n rows, out[r] = Σ rows[r]·query, where a row
 * is `groups` × 8 floats. Params 0–4; locals 5 (groups left), 6 (query cursor), 7–8 (v128 sums).
 */
function scanBody(): number[] {
  const accumulate = (acc: number, offset: number) => [
    ...get(acc),
    ...get(0),
    ...v128Load(offset),
    ...get(6),
    ...v128Load(offset),
    ...F32X4_MUL,
    ...F32X4_ADD,
    ...set(acc),
  ];
  const zero = simd(0x0c, ...new Array<number>(16).fill(0));
  const code = [
    ...[0x02, 0x40], // block
    ...get(2),
    0x45, // i32.eqz
    ...[BR_IF, 0],
    ...[0x03, 0x40], // loop: rows
    ...zero,
    ...set(7),
    ...zero,
    ...set(8),
    ...get(1),
    ...set(6),
    ...get(3),
    ...set(5),
    ...[0x03, 0x40], // loop: groups of 8 floats
    ...accumulate(7, 0),
    ...accumulate(8, 16),
    ...get(0),
    ...i32(32),
    I32_ADD,
    ...set(0),
    ...get(6),
    ...i32(32),
    I32_ADD,
    ...set(6),
    ...get(5),
    ...i32(1),
    I32_SUB,
    ...tee(5),
    ...[BR_IF, 0],
    0x0b, // end groups
    ...get(7),
    ...get(8),
    ...F32X4_ADD,
    ...set(7),
    ...get(4),
    ...get(7),
    ...lane(0),
    ...get(7),
    ...lane(1),
    F32_ADD,
    ...get(7),
    ...lane(2),
    F32_ADD,
    ...get(7),
    ...lane(3),
    F32_ADD,
    ...[0x38, 2, 0], // f32.store align 2^2, offset 0
    ...get(4),
    ...i32(4),
    I32_ADD,
    ...set(4),
    ...get(2),
    ...i32(1),
    I32_SUB,
    ...tee(2),
    ...[BR_IF, 0],
    0x0b, // end rows
    0x0b, // end block
    0x0b, // end function
  ];
  const locals = [2, 2, 0x7f, 2, 0x7b]; // 2 × i32, 2 × v128
  return [...locals, ...code];
}

function section(id: number, bytes: number[]): number[] {
  return [id, ...uleb(bytes.length), ...bytes];
}
const name = (s: string) => [...uleb(s.length), ...Buffer.from(s, "utf8")];

/** The module's bytes: imports env.mem, exports scan. */
export function scanModuleBytes(): Uint8Array {
  const body = scanBody();
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

/** Instantiates the kernel on `memory`, or null when this runtime has no WebAssembly SIMD. */
export function simdScan(memory: WasmMemory): ScanFn | null {
  const bytes = scanModuleBytes();
  if (!wasm || !wasm.validate(bytes)) return null;
  try {
    const instance = new wasm.Instance(new wasm.Module(bytes), { env: { mem: memory } });
    return instance.exports.scan as ScanFn;
  } catch {
    return null;
  }
}

/** scan() in JavaScript (no SIMD), offsets in floats: the same sums to within scanDotError (float64 here). */
export function jsScan(heap: Float32Array, rows: number, query: number, n: number, groups: number, out: number): void {
  const stride = groups * 8;
  let r = rows;
  const q = query;
  const o = out;
  for (let i = 0; i < n; i++, r += stride) {
    let s = 0;
    for (let j = 0; j < stride; j++) s += heap[r + j]! * heap[q + j]!;
    heap[o + i] = s;
  }
}
