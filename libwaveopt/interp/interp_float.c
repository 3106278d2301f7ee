/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Floating-point helpers of the interpreter: bit casts, binary16 and bfloat16 conversions
 * written out by hand (the host may have no _Float16), the saturating conversions of
 * docs/language.md "Conversions", and the f16/bf16/f32/f64 operations that are more than one C
 * operator.
 *
 * C float arithmetic is IEEE binary32 with round-to-nearest-even; the library is compiled as
 * ISO C, where GCC and Clang do not contract a*b+c into an FMA, so only `fma` uses fmaf.
 */
#include <math.h>
#include <string.h>

#include "interp/interp_float.h"
#include "waveopt/interp.h"
#include "waveopt/ir.h"

double interp_f64(uint32_t lo, uint32_t hi) {
  uint64_t bits = (uint64_t)hi << 32 | lo;
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

uint64_t interp_f64_bits(double d) {
  uint64_t bits;
  memcpy(&bits, &d, sizeof bits);
  return bits;
}

float interp_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t man = h & 0x3FFu;
  if (exp == 0) {
    /* Zero or subnormal: man * 2^-24 is exact in binary32. */
    float mag = (float)man * 0x1p-24f;
    return sign ? -mag : mag;
  }
  if (exp == 31)
    return interp_f32(sign | 0x7F800000u | man << 13);
  return interp_f32(sign | (exp - 15 + 127) << 23 | man << 13);
}

/* Shifts `sig` right by `shift` (1..31) rounding to nearest, ties to even. */
static uint32_t shift_round_even(uint32_t sig, unsigned shift) {
  uint32_t kept = sig >> shift;
  uint32_t rest = sig & ((1u << shift) - 1);
  uint32_t half = 1u << (shift - 1);
  if (rest > half || (rest == half && (kept & 1)))
    kept++;
  return kept;
}

uint16_t interp_f32_to_f16(float f) {
  uint32_t x = interp_bits(f);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t exp = (x >> 23) & 0xFFu;
  uint32_t man = x & 0x7FFFFFu;
  if (exp == 255) /* inf stays inf; NaN stays a (quiet) NaN with the top payload bits */
    return (uint16_t)(sign | 0x7C00u | (man ? 0x200u | man >> 13 : 0));
  if (exp == 0) /* binary32 zero or subnormal: far below half the smallest f16 subnormal */
    return sign;
  int e16 = (int)exp - 127 + 15;
  if (e16 >= 31)
    return (uint16_t)(sign | 0x7C00u);
  if (e16 >= 1) {
    /* A carry out of the mantissa correctly bumps the exponent (up to infinity). */
    uint32_t rounded = shift_round_even(man, 13);
    return (uint16_t)(sign + ((uint32_t)e16 << 10) + rounded);
  }
  /* Subnormal result: value = sig * 2^(exp-150) = k * 2^-24 with k = sig >> (14 - e16). */
  unsigned shift = (unsigned)(14 - e16);
  if (shift >= 32)
    return sign;
  return (uint16_t)(sign | shift_round_even(man | 0x800000u, shift));
}

float interp_bf16_to_f32(uint16_t h) {
  return interp_f32((uint32_t)h << 16);
}

float wave_half_to_float(uint16_t bits, bool bf16) {
  return bf16 ? interp_bf16_to_f32(bits) : interp_f16_to_f32(bits);
}

uint16_t interp_f32_to_bf16(float f) {
  uint32_t x = interp_bits(f);
  uint16_t top = (uint16_t)(x >> 16);
  /* Truncation would turn a NaN whose payload sits in the low half into infinity. */
  if (isnan(f))
    top |= 0x40u;
  return top;
}

uint32_t interp_cvt_i32_f32(float f) {
  if (isnan(f))
    return 0;
  if (f >= 2147483648.0f)
    return 0x7FFFFFFFu;
  if (f <= -2147483648.0f)
    return 0x80000000u;
  return (uint32_t)(int32_t)f;
}

uint32_t interp_cvt_u32_f32(float f) {
  if (isnan(f) || f <= 0.0f)
    return 0;
  if (f >= 4294967296.0f)
    return 0xFFFFFFFFu;
  return (uint32_t)f;
}

/* ---- f16 / bf16 ----------------------------------------------------------------------- */

static float half_arith(uint16_t op, float a, float b, float c) {
  switch (op) {
  case WAVE_OP_HADD: case WAVE_OP_HADD2: case WAVE_OP_BADD: case WAVE_OP_BADD2:
    return a + b;
  case WAVE_OP_HSUB: case WAVE_OP_BSUB:
    return a - b;
  case WAVE_OP_HMUL: case WAVE_OP_HMUL2: case WAVE_OP_BMUL: case WAVE_OP_BMUL2:
    return a * b;
  default: /* the fused forms hma, hma2, bma, bma2 */
    return fmaf(a, b, c);
  }
}

static uint16_t half_lane(uint16_t op, bool bf16, uint16_t a, uint16_t b, uint16_t c) {
  if (bf16)
    return interp_f32_to_bf16(half_arith(op, interp_bf16_to_f32(a), interp_bf16_to_f32(b),
                                         interp_bf16_to_f32(c)));
  return interp_f32_to_f16(half_arith(op, interp_f16_to_f32(a), interp_f16_to_f32(b),
                                      interp_f16_to_f32(c)));
}

uint32_t interp_half_op(uint16_t op, uint32_t a, uint32_t b, uint32_t c) {
  bool bf16 = wave_opcode_table[op].category == WAVE_CAT_BF16;
  bool packed = op == WAVE_OP_HADD2 || op == WAVE_OP_HMUL2 || op == WAVE_OP_HMA2 ||
                op == WAVE_OP_BADD2 || op == WAVE_OP_BMUL2 || op == WAVE_OP_BMA2;
  uint32_t lo = half_lane(op, bf16, (uint16_t)a, (uint16_t)b, (uint16_t)c);
  if (!packed)
    return lo;
  uint32_t hi = half_lane(op, bf16, (uint16_t)(a >> 16), (uint16_t)(b >> 16),
                          (uint16_t)(c >> 16));
  return lo | hi << 16;
}

/* ---- f32 ------------------------------------------------------------------------------ */

uint32_t interp_f32_unary(uint16_t op, uint32_t bits) {
  float x = interp_f32(bits);
  float r;
  switch (op) {
  case WAVE_OP_FSQRT: r = sqrtf(x); break;
  case WAVE_OP_FRSQRT: r = 1.0f / sqrtf(x); break;
  case WAVE_OP_FRCP: r = 1.0f / x; break;
  case WAVE_OP_FFLOOR: r = floorf(x); break;
  case WAVE_OP_FCEIL: r = ceilf(x); break;
  case WAVE_OP_FROUND: r = roundf(x); break;   /* ties away from zero */
  case WAVE_OP_FTRUNC: r = truncf(x); break;
  case WAVE_OP_FFRACT: r = x - truncf(x); break;
  case WAVE_OP_FSAT: r = isnan(x) ? x : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; break;
  case WAVE_OP_FSIN: r = sinf(x); break;
  case WAVE_OP_FCOS: r = cosf(x); break;
  case WAVE_OP_FEXP2: r = exp2f(x); break;
  case WAVE_OP_FLOG2: r = log2f(x); break;
  case WAVE_OP_CVT_F32_I32: r = (float)(int32_t)bits; break;
  case WAVE_OP_CVT_F32_U32: r = (float)bits; break;
  case WAVE_OP_CVT_I32_F32: return interp_cvt_i32_f32(x);
  case WAVE_OP_CVT_U32_F32: return interp_cvt_u32_f32(x);
  case WAVE_OP_CVT_F32_F16: r = interp_f16_to_f32((uint16_t)bits); break;
  case WAVE_OP_CVT_F16_F32: return interp_f32_to_f16(x);
  case WAVE_OP_CVT_F32_BF16: r = interp_bf16_to_f32((uint16_t)bits); break;
  case WAVE_OP_CVT_BF16_F32: return interp_f32_to_bf16(x);
  default: r = x; break;
  }
  return interp_bits(r);
}

/* ---- f64 ------------------------------------------------------------------------------ */

uint32_t interp_f64_op(uint16_t op, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                       uint32_t *hi) {
  double x = interp_f64(a[0], a[1]);
  double r;
  switch (op) {
  case WAVE_OP_DADD: r = x + interp_f64(b[0], b[1]); break;
  case WAVE_OP_DSUB: r = x - interp_f64(b[0], b[1]); break;
  case WAVE_OP_DMUL: r = x * interp_f64(b[0], b[1]); break;
  case WAVE_OP_DMA: r = fma(x, interp_f64(b[0], b[1]), interp_f64(c[0], c[1])); break;
  case WAVE_OP_DDIV: r = x / interp_f64(b[0], b[1]); break;
  case WAVE_OP_DSQRT: r = sqrt(x); break;
  case WAVE_OP_CVT_F32_F64: *hi = 0; return interp_bits((float)x);
  default: r = x; break;
  }
  uint64_t bits = interp_f64_bits(r);
  *hi = (uint32_t)(bits >> 32);
  return (uint32_t)bits;
}
