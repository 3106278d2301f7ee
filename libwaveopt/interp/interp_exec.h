/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The data path (interp_exec.c): a wave's register file, the memory images, and executing
 * one non-control instruction for a set of lanes. Control flow lives above, in the SIMT and
 * per-thread schedulers.
 *
 * A wave's register file is row-major by register: row r holds register r of every lane, so
 * one instruction touches a few contiguous rows. Rows past the GPRs hold the special registers
 * (per lane) and the immediates of documentation-dialect operands (shared, read-only), which
 * lets every source operand be a plain row. In per-thread mode a thread is a wave of width 1.
 */
#ifndef WAVE_INTERP_EXEC_H
#define WAVE_INTERP_EXEC_H

#include "interp/interp_program.h"

/* Memory images and the data-path context shared by all waves of a launch. */
typedef struct interp_mem {
  uint8_t *device;
  size_t device_size;
  uint8_t *local;
  size_t local_size;
  bool emulator_fallbacks;
  bool thread_mode;       /* wave operations are errors */
} interp_mem;

/* What went wrong in the data path; the caller adds line, wave and lanes. */
typedef struct interp_fault {
  wave_error_kind kind;
  uint64_t lanes;
  uint64_t address;       /* first offending address for memory faults */
  uint32_t bytes;
  bool local;             /* the memory was local */
} interp_fault;

typedef struct interp_wave {
  uint32_t **row;         /* register rows: GPRs, special registers, immediates */
  uint32_t *storage;      /* this wave's GPR and special-register lanes */
  float *frags;           /* num_frags * 3 banks (A, B, C) * width * 16 */
  uint64_t pred[WAVE_NUM_PREDS];
  uint32_t width;         /* lanes in the register file (W, or 1 for a thread) */
  const wave_allocator *allocator; /* the program's, for interp_wave_free */
} interp_wave;

/* Allocates a wave's register file from prog's allocator (rows point into `const_rows` for
 * immediates). */
bool interp_wave_alloc(interp_wave *w, const interp_program *prog, uint32_t width,
                       uint32_t **const_rows);
void interp_wave_free(interp_wave *w);
/* Zeroes GPRs, predicates and fragments. */
void interp_wave_reset(interp_wave *w, const interp_program *prog);

/* Shared immediate rows: one row of `width` lanes per immediate; one block, from prog's
 * allocator, to be given back to it. */
uint32_t **interp_const_rows_create(const interp_program *prog, uint32_t width);

/* Executes one non-control instruction for the lanes in `mask` (already narrowed by the
 * guard). Returns false and fills *fault on undefined behaviour. */
bool interp_exec(const interp_instr *in, interp_wave *w, uint64_t mask, interp_mem *mem,
                 interp_fault *fault);

/* Branch-free: without -mpopcnt the builtin becomes a library call. */
static inline unsigned interp_popcount(uint64_t m) {
  m = m - ((m >> 1) & 0x5555555555555555ull);
  m = (m & 0x3333333333333333ull) + ((m >> 2) & 0x3333333333333333ull);
  m = (m + (m >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return (unsigned)((m * 0x0101010101010101ull) >> 56);
}

#endif
