/**
 * IEEE 754 binary16 conversion (round-to-nearest-even, subnormals, ±Inf, NaN),
 * without relying on Math.f16round (not in Node 20).
 */

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** float32 → float16 bit pattern. */
export function f32ToF16Bits(value: number): number {
  f32[0] = value;
  const x = u32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  const mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant !== 0 ? 0x200 | (mant >>> 13) : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow → ±Inf
  if (e <= 0) {
    // Half subnormal: value = full · 2^(exp-150) = m · 2^-24 → m = full >> (126 - exp).
    const shift = 126 - exp;
    if (shift > 24) return sign; // below half the smallest subnormal → ±0
    const full = mant | 0x800000;
    let m = full >>> shift;
    const rem = full & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rem > half || (rem === half && (m & 1) !== 0)) m++;
    return sign | m; // m may carry into the smallest normal, which is the right bit pattern
  }
  let h = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1) !== 0)) h++; // carry may reach 0x7c00 = Inf: correct
  return sign | h;
}

/** float16 bit pattern → number. */
export function f16BitsToF32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant === 0 ? sign * Infinity : NaN;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** Round every value to the nearest float16 (what a F16 tensor will hold). */
export function roundToF16(values: Float32Array): Float32Array {
  const out = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = f16BitsToF32(f32ToF16Bits(values[i]!));
  return out;
}
