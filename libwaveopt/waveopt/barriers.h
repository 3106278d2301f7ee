/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Barrier divergence: the barriers that some threads of the workgroup may reach without the
 * others, and the wave operations that run where the wave is not converged. The rules are in
 * analysis/barriers.c.
 *
 * The analysis registered as `barriers` (print<barriers>, waveopt -analyze=barriers) reports
 * each divergent barrier as an error, and as a warning [-Wbarrier-divergence] under the lint
 * pass of -O1..-O3; a wave operation at a point that is not converged is always a warning
 * [-Wtoolchain] (docs/toolchain.md "Wave operations under divergence").
 */
#ifndef WAVEOPT_BARRIERS_H
#define WAVEOPT_BARRIERS_H

#include "waveopt/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "waveopt/diag.h"
#include "waveopt/ir.h"
#include "waveopt/uniformity.h"
#include "waveopt/waveopt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wave_barriers wave_barriers;

/* What makes the point of a finding not converged, innermost construct first. */
typedef enum wave_barrier_cause {
  WAVE_BARRIER_CAUSE_IF,          /* node: an enclosing if whose predicate may differ */
  WAVE_BARRIER_CAUSE_BRANCH,      /* branch: a break or continue earlier in the iteration that
                                   * only some lanes take */
  WAVE_BARRIER_CAUSE_LOOP,        /* node: an enclosing loop that lanes leave at different
                                   * iterations */
  WAVE_BARRIER_CAUSE_GUARD,       /* the instruction's own guard may differ */
  WAVE_BARRIER_CAUSE_CALL,        /* branch: a call into the subroutine holding it, made where
                                   * lanes are parked */
  WAVE_BARRIER_CAUSE_SUBROUTINE,  /* it follows a label, entered from calls the uniformity
                                   * analysis does not follow */
} wave_barrier_cause;

typedef struct wave_barrier_finding {
  const wave_instr *instr;        /* a barrier, or a wave operation (wave_*, the shuffles) */
  /* A barrier converged within every wave whose waves may still disagree (sr_wave_id, a
   * wave_reduce_* result); false for wave operations. */
  bool across_waves;
  wave_barrier_cause cause;
  const wave_node *node;          /* IF and LOOP */
  const wave_instr *branch;       /* BRANCH and CALL */
  uint32_t line;                  /* the construct's source line; 0 when unknown */
  /* "the if at line 6 is divergent (p1 = icmp_lt (line 5) <- ... <- sr_thread_id_x)" */
  const char *why;
} wave_barrier_finding;

/* The findings for `kernel`, or NULL when memory ran out. per_wave is the kernel's default
 * uniformity (the `uniformity` analysis), or NULL to compute it here; the classification
 * across the workgroup that barriers need is computed here either way. */
WAVE_API wave_barriers *wave_barriers_compute(const wave_kernel *kernel,
                                              const wave_uniformity *per_wave);
WAVE_API void wave_barriers_destroy(wave_barriers *b);

/* The findings in text order. */
WAVE_API size_t wave_barriers_num_findings(const wave_barriers *b);
WAVE_API const wave_barrier_finding *wave_barriers_finding(const wave_barriers *b, size_t index);
/* The finding at instr; NULL when instr is converged wherever it runs, never runs, or is
 * neither a barrier nor a wave operation. */
WAVE_API const wave_barrier_finding *wave_barriers_find(const wave_barriers *b,
                                                        const wave_instr *instr);

/* Reports every finding in diags at its instruction, quoting the module's line: a barrier is an
 * error when asked (the user named the analysis) and a warning [-Wbarrier-divergence]
 * otherwise; a wave operation is a warning [-Wtoolchain] either way. */
WAVE_API void wave_barriers_diagnose(const wave_barriers *b, const wave_kernel *kernel,
                                     bool asked, wave_diags *diags);

/* The kernel with every barrier and wave operation annotated at the end of its line, after the
 * line's own comment: `; converged`, `; not converged: <why>` or `; not reached`. Returns 0, or
 * non-zero when write failed. */
WAVE_API int wave_barriers_print(const wave_barriers *b, const wave_kernel *kernel,
                                 wave_write_fn write, void *ctx);

/* Whether two results for the same kernel have the same findings (texts aside). */
WAVE_API bool wave_barriers_equal(const wave_barriers *a, const wave_barriers *b);

#ifdef __cplusplus
}
#endif

#endif
