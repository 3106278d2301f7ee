/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32, f64, f16 and bf16 arithmetic as the interpreter defines it (interp_float.c): the
 * conversions between bit patterns and host floats, and the operations that are not one C
 * operator.
 */
#ifndef WAVE_INTERP_FLOAT_H
#define WAVE_INTERP_FLOAT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline float interp_f32(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}
static inline uint32_t interp_bits(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  return bits;
}
double interp_f64(uint32_t lo, uint32_t hi);
uint64_t interp_f64_bits(double d);
float interp_f16_to_f32(uint16_t h);
uint16_t interp_f32_to_f16(float f);       /* round to nearest even */
float interp_bf16_to_f32(uint16_t h);
uint16_t interp_f32_to_bf16(float f);      /* truncation */
uint32_t interp_cvt_i32_f32(float f);      /* saturating, NaN -> 0 */
uint32_t interp_cvt_u32_f32(float f);
/* The f16 / bf16 families: op is the wave_opcode; a, b, c are the 32-bit sources. */
uint32_t interp_half_op(uint16_t op, uint32_t a, uint32_t b, uint32_t c);
/* f32 unary and binary ops that are not a single C operator. */
uint32_t interp_f32_unary(uint16_t op, uint32_t a);
uint32_t interp_f64_op(uint16_t op, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                       uint32_t *hi);

#endif
