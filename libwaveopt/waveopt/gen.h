/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Random kernel generator (wavegen): kernels that are valid, terminate and are free of
 * undefined behaviour, so that when a kernel and its transformation disagree in the reference
 * interpreter, the transformation is wrong.
 *
 * A generated kernel expects the launch described by wave_gen_launch: a grid of workgroups
 * whose shape is the kernel's .workgroup_size, device memory of at least
 * device_memory_size bytes (any contents), and the preset registers in `args` (each one is
 * base + (random & random_mask) for any random value). Every lane writes each register it
 * may have changed into its own output slot before it halts, so all results are observable
 * in device memory and no register is live at a halt.
 *
 * Besides random statements, a kernel holds the shapes the optimization passes rewrite (small
 * ifs of pure code, ifs nested alone, `if p { break q }`, sides alike at either end, dead code,
 * loops that count a constant number of times, ...), each now and then, so that the
 * differential harness sees every pass fire.
 *
 * Deterministic: the same options give the same kernel, on every host.
 */
#ifndef WAVEOPT_GEN_H
#define WAVEOPT_GEN_H

#include "waveopt/api.h"

#include <stdbool.h>
#include <stdint.h>

#include "waveopt/diag.h"
#include "waveopt/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Nesting of if/loop regions is capped here whatever the options say. */
#define WAVE_GEN_MAX_DEPTH 8

typedef struct wave_gen_options {
  uint64_t seed;
  unsigned size;          /* approximate instruction count of the kernel (default 250) */
  unsigned max_depth;     /* if/loop nesting, default 5, at most WAVE_GEN_MAX_DEPTH */
  bool wave_ops;          /* wave_* operations and W-dependent special registers; when false
                           * the kernel's results do not depend on the wave width */
  bool atomics;           /* device and local atomics */
  bool atomic_returns;    /* atomics whose old value is used (on the lane's own slots; on
                           * shared counters only with `races`) */
  bool races;             /* shared counters' old values are observed: results then depend
                           * on the order in which lanes run */
  bool barriers;          /* barriers and local-memory exchanges at the top level */
  bool divergent_barriers;  /* with barriers: also inside ifs and loops (never after a halt,
                             * and then no halt inside a loop), where some threads may reach
                             * them without the others: the one undefined behaviour allowed,
                             * for testing barrier checks */
  bool halts;             /* halts inside divergent regions */
  bool floats;            /* f32 and f16 arithmetic */
  bool docs_dialect;      /* also documentation-dialect forms (predicate logic, `break !p`,
                           * immediates, missing compares), to test their lowering; the
                           * kernel then leaves p3 unused for the lowering's scratch */
  bool docs_all_preds;    /* with docs_dialect: p3 is used too, so that lowering a negated
                           * break must find a predicate dead at it (and refuses the kernel
                           * where every one is live) */
} wave_gen_options;

/* Defaults: every feature on except races and docs_dialect. */
WAVE_API void wave_gen_options_init(wave_gen_options *options);

#define WAVE_GEN_MAX_ARGS 8

/* A preset register: its value is base + (r & random_mask) for any r the host picks. */
typedef struct wave_gen_arg {
  uint32_t reg;
  uint32_t base;
  uint32_t random_mask;
  const char *role;       /* static text: "input area", "output slots", ... */
} wave_gen_arg;

typedef struct wave_gen_launch {
  uint32_t grid[3];              /* workgroups */
  uint32_t workgroup[3];         /* threads per workgroup, also the kernel's .workgroup_size */
  uint32_t device_memory_size;   /* bytes the kernel may touch, contents arbitrary */
  uint32_t output_base;          /* lane t's output slot (t = global linear thread index) is */
  uint32_t output_slot_bytes;    /* output_base + t * output_slot_bytes */
  uint32_t dump_offset;          /* in a slot: r0, r1, ... then the predicates, one word each */
  uint32_t num_dumped_registers;
  uint32_t num_dumped_predicates;
  unsigned num_args;
  wave_gen_arg args[WAVE_GEN_MAX_ARGS];
} wave_gen_launch;

/* Builds a module holding one kernel. Returns NULL (with an error in diags) when memory runs
 * out. `launch` receives what the kernel expects. */
WAVE_API wave_module *wave_generate(const wave_gen_options *options, wave_gen_launch *launch,
                                    wave_diags *diags);

/* The launch as comment lines ("; ..."), naming the seed and a wavesim command line that runs
 * the kernel; malloc'd, NUL-terminated, NULL when memory runs out. */
WAVE_API char *wave_gen_describe(const wave_gen_options *options, const wave_gen_launch *launch);

#ifdef __cplusplus
}
#endif

#endif
