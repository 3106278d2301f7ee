/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The optimization benchmark's corpus: the kernels of tests/bench/kernels, each with its launch,
 * its input data generated here in C, and a reference implementation in C that computes the
 * expected device memory from those inputs without the interpreter. bench_opt measures the
 * corpus at -O0 and -O2; test_bench_kernels (make check) runs it at every -O level as a
 * correctness gate.
 *
 * A run compares the whole device memory with the expected image: the outputs, the inputs
 * (which must stay as they were unless the kernel writes them) and the sentinels the outputs
 * are filled with (which catch stray and out-of-bounds writes). Outputs whose order depends on
 * scheduling (a list appended to through an atomic counter) are put into a canonical order on
 * both sides first.
 *
 * Inputs come from hash(seed, i) below, which the kernels' header comments cite.
 */
#ifndef WAVE_BENCH_KERNELS_H
#define WAVE_BENCH_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "waveopt/interp.h"
#include "waveopt/pass.h"
#include "waveopt/profile.h"
#include "waveopt/waveopt.h"

#define BK_MAX_PRESETS 8
/* Wave-instructions a launch may issue: far above the largest kernel's needs at W = 8. */
#define BK_MAX_STEPS 200000000u

typedef struct bk_kernel {
  const char *name;             /* the file tests/bench/kernels/<name>.wave */
  /* Has small divergent ifs: the group of the 25% target. test_bench_kernels checks
   * the mark against the kernel (bk_small_if_limit). */
  bool small_ifs;
  /* The narrowest wave width the results hold at: 8 for kernels that work at any width. */
  uint32_t min_width;
  uint32_t grid[3];
  uint32_t workgroup[3];        /* equal to the kernel's .workgroup_size */
  size_t memory_size;           /* device memory in bytes, all of it compared after the run */
  wave_reg_value presets[BK_MAX_PRESETS];
  size_t num_presets;
  /* Writes the inputs and sentinels into zeroed memory. The measured inputs are those of salt
   * 0; another salt draws other inputs of the same shape (every seed of bk_hash moved by it),
   * for profiles taken on other data than the measured run. Kernels without generated inputs
   * (collatz, mandelbrot, julia, ray_sphere) ignore it. */
  void (*init)(uint8_t *mem, uint32_t salt);
  void (*reference)(uint8_t *mem);     /* turns the initial image into the expected one */
  void (*canonical)(uint8_t *mem);     /* NULL, or sorts order-free outputs in place */
} bk_kernel;

extern const bk_kernel bk_kernels[];
extern const size_t bk_num_kernels;

/* The instructions a side of an if may hold for the if to count as small. */
enum { bk_small_if_limit = 8 };

/* The benchmark's input generator: lowbias32 of i * 0x9E3779B9 + seed * 0x632BE5AB. */
uint32_t bk_hash(uint32_t seed, uint32_t i);

/* The kernel file's path under dir (the source tree's tests/bench/kernels); malloc'd. */
char *bk_path(const char *dir, const bk_kernel *k);

/* Parses and verifies the file, then runs `pipeline` (NULL: none, the kernel as written) with
 * verify_each, passes allowed to grow .registers up to max_registers (0: no growth), and the
 * divergence profile `profile` when not NULL (waveopt -profile-use). NULL after reporting why in
 * diags. */
wave_module *bk_compile(const wave_pass_registry *registry, const char *path, const char *pipeline,
                        uint32_t max_registers, const wave_profile *profile, wave_diags *diags);

/* What one launch measured. */
typedef struct bk_measure {
  uint64_t issued;              /* wave-instructions issued with some lane active */
  double simd_efficiency;       /* active lanes / (issued * W) */
  uint32_t max_depth;           /* deepest divergence stack, frames */
  size_t static_instrs;         /* instructions of the flattened program, structured ones too */
  uint64_t divergent_ifs;
  uint64_t emu_walks;           /* the upstream emulator's count, modelled: steps + emu_walked */
} bk_measure;

/* Runs `kernel` with k's launch at wave width `width` and compares device memory with the
 * reference. True when the launch finished and every byte matched; otherwise why says what
 * went wrong (snprintf into why_size bytes). */
bool bk_run(const bk_kernel *k, const wave_kernel *kernel, uint32_t width, bk_measure *out,
            char *why, size_t why_size);

/* The divergence profile (wave_profile_write, naming `source`) of `kernel` run with k's launch
 * on the inputs of `salt`; NULL when the run failed or memory ran out. */
char *bk_profile(const bk_kernel *k, const wave_kernel *kernel, uint32_t width, uint32_t salt,
                 const char *source);

#endif
