/**
 * The few pieces of the WebAssembly binary format that the vector kernels (simd-dot.ts,
 * simd-hamming.ts) are assembled from at runtime — no toolchain, no binary in the repository — and
 * the part of the WebAssembly API they use. Each kernel keeps a readable listing (.wat) beside it
 * that a test assembles with WABT to exactly the emitted bytes.
 */

/** LEB128 of an unsigned integer. */
export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

/** Signed LEB128. */
export function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
}

/** A SIMD instruction (prefix 0xfd) with its immediates. */
export const simd = (op: number, ...imm: number[]) => [0xfd, ...uleb(op), ...imm];
export const get = (i: number) => [0x20, i];
export const set = (i: number) => [0x21, i];
export const tee = (i: number) => [0x22, i];
/** i32.const (signed LEB128; non-negative values). */
export const i32c = (n: number) => [0x41, ...sleb(n)];
export const I32_EQZ = 0x45;
export const I32_ADD = 0x6a;
export const I32_SUB = 0x6b;
export const I32_MUL = 0x6c;
export const I32_SHL = 0x74;
export const BR_IF = 0x0d;
export const BLOCK = [0x02, 0x40];
export const LOOP = [0x03, 0x40];
export const END = 0x0b;
export const I32 = 0x7f;
export const V128 = 0x7b;
/** i32.load / i32.store / i32.store16 with an alignment hint (log2 bytes) and an offset. */
export const i32Load = (align: number, offset: number) => [0x28, align, ...uleb(offset)];
export const i32Store = (align: number, offset: number) => [0x36, align, ...uleb(offset)];
export const i32Store16 = (align: number, offset: number) => [0x3b, align, ...uleb(offset)];
/** i32x4.extract_lane. */
export const lane = (l: number) => simd(0x1b, l);
/** i32x4 on the stack, also held in local `v` → the sum of its four lanes (i32). */
export const laneSum = (v: number) => [
  ...lane(0),
  ...get(v),
  ...lane(1),
  I32_ADD,
  ...get(v),
  ...lane(2),
  I32_ADD,
  ...get(v),
  ...lane(3),
  I32_ADD,
];

function section(id: number, bytes: number[]): number[] {
  return [id, ...uleb(bytes.length), ...bytes];
}
const name = (s: string) => [...uleb(s.length), ...Buffer.from(s, "utf8")];

/**
 * A module of one function `fn` of `params` i32 parameters and no result that imports its
 * memory as env.mem; `body` is the function body (local declarations, code, end).
 */
export function oneFunctionModule(fn: string, params: number, body: number[]): Uint8Array {
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, params, ...Array<number>(params).fill(I32), 0]),
    ...section(2, [1, ...name("env"), ...name("mem"), 0x02, 0x00, 1]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name(fn), 0x00, 0]),
    ...section(10, [1, ...uleb(body.length), ...body]),
  ]);
}

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

/** The exported function `fn` of `bytes` instantiated on `memory`, or null when this runtime cannot run it (no WebAssembly, or no SIMD). */
export function instantiate<F>(bytes: Uint8Array, memory: WasmMemory, fn: string): F | null {
  if (!wasm || !wasm.validate(bytes)) return null;
  try {
    const instance = new wasm.Instance(new wasm.Module(bytes), { env: { mem: memory } });
    return instance.exports[fn] as F;
  } catch {
    return null;
  }
}
