// IEEE 754 half precision and bfloat16 <-> number conversions; Node 20 has
// no Float16Array, so FP16/BF16 tensors keep their raw 16-bit patterns.

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** number → FP16 bits, round-to-nearest-even, with overflow to ±Infinity. */
export function toHalfBits(value: number): number {
  f32[0] = value;
  const x = u32[0] ?? 0;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant !== 0 ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    const half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    return sign | (rem > mid || (rem === mid && (half & 1) === 1) ? half + 1 : half);
  }
  const half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  const rounded = rem > 0x1000 || (rem === 0x1000 && (half & 1) === 1) ? half + 1 : half;
  return sign | rounded;
}

/** FP16 bits → number. */
export function fromHalfBits(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >>> 10) & 0x1f;
  const mant = bits & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant !== 0 ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** number → BF16 bits (upper half of FP32, round-to-nearest-even). */
export function toBfloat16Bits(value: number): number {
  f32[0] = value;
  const x = u32[0] ?? 0;
  if (Number.isNaN(value)) return ((x >>> 16) & 0xffff) | 0x40;
  const rounding = 0x7fff + ((x >>> 16) & 1);
  return ((x + rounding) >>> 16) & 0xffff;
}

/** BF16 bits → number. */
export function fromBfloat16Bits(bits: number): number {
  u32[0] = (bits & 0xffff) << 16;
  return f32[0] ?? 0;
}
