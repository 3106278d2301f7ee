/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Register sets: one bit for every register an instruction can name, in a fixed-size value
 * type, so that liveness, interference and scratch-register searches copy, compare and combine
 * sets without allocating and without owning anything.
 *
 * GPRs and predicates share one index space, r0..r254 first and p0..p3 after them
 * (WAVE_REG_GPR, WAVE_REG_PRED), so that one set holds both kinds and every helper works on
 * either. Indices outside that space are ignored by the setters and never test as members, so
 * a malformed operand cannot write past the set.
 */
#ifndef WAVEOPT_REGSET_H
#define WAVEOPT_REGSET_H

#include <stdbool.h>
#include <stdint.h>

#include "waveopt/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WAVE_REG_GPR(r) ((unsigned)(r))
#define WAVE_REG_PRED(p) ((unsigned)(WAVE_MAX_GPR + 1) + (unsigned)(p))
#define WAVE_NUM_REGS (WAVE_MAX_GPR + 1 + WAVE_NUM_PREDS)
#define WAVE_REGSET_WORDS ((WAVE_NUM_REGS + 63) / 64)

typedef struct wave_regset {
  uint64_t words[WAVE_REGSET_WORDS];
} wave_regset;

static inline wave_regset wave_regset_empty(void) {
  wave_regset s = {{0}};
  return s;
}

static inline bool wave_regset_test(wave_regset s, unsigned reg) {
  return reg < WAVE_NUM_REGS && (s.words[reg / 64] >> (reg % 64) & 1) != 0;
}

static inline void wave_regset_set(wave_regset *s, unsigned reg) {
  if (reg < WAVE_NUM_REGS)
    s->words[reg / 64] |= (uint64_t)1 << (reg % 64);
}

static inline void wave_regset_clear(wave_regset *s, unsigned reg) {
  if (reg < WAVE_NUM_REGS)
    s->words[reg / 64] &= ~((uint64_t)1 << (reg % 64));
}

/* reg, reg+1, ..., reg+count-1: a register pair or quad. */
static inline void wave_regset_set_range(wave_regset *s, unsigned reg, unsigned count) {
  for (unsigned i = 0; i < count; i++)
    wave_regset_set(s, reg + i);
}

static inline wave_regset wave_regset_union(wave_regset a, wave_regset b) {
  for (unsigned i = 0; i < WAVE_REGSET_WORDS; i++)
    a.words[i] |= b.words[i];
  return a;
}

static inline wave_regset wave_regset_intersect(wave_regset a, wave_regset b) {
  for (unsigned i = 0; i < WAVE_REGSET_WORDS; i++)
    a.words[i] &= b.words[i];
  return a;
}

/* The members of a that are not in b. */
static inline wave_regset wave_regset_subtract(wave_regset a, wave_regset b) {
  for (unsigned i = 0; i < WAVE_REGSET_WORDS; i++)
    a.words[i] &= ~b.words[i];
  return a;
}

static inline bool wave_regset_equal(wave_regset a, wave_regset b) {
  for (unsigned i = 0; i < WAVE_REGSET_WORDS; i++)
    if (a.words[i] != b.words[i])
      return false;
  return true;
}

static inline bool wave_regset_is_empty(wave_regset s) {
  return wave_regset_equal(s, wave_regset_empty());
}

/* The lowest index in [from, end) that is not in s, in *reg; false when all are taken. For a
 * free GPR below .registers: (s, WAVE_REG_GPR(0), WAVE_REG_GPR(wave_kernel_registers(kernel)), &r);
 * for a free predicate that guards survive: (s, WAVE_REG_PRED(1), WAVE_REG_PRED(4), &p). */
static inline bool wave_regset_first_free(wave_regset s, unsigned from, unsigned end,
                                          unsigned *reg) {
  for (unsigned r = from; r < end && r < WAVE_NUM_REGS; r++) {
    if (!wave_regset_test(s, r)) {
      *reg = r;
      return true;
    }
  }
  return false;
}

#ifdef __cplusplus
}
#endif

#endif
