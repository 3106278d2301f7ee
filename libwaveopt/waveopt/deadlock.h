/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SIMT deadlock: loops that wait for memory which, in the same wave, only lanes parked by
 * divergence would write. Run thread by thread such a kernel finishes; run as SIMT waves the
 * spinning lanes keep the wave in the loop and the writers never get their turn. The rules
 * are in analysis/simt_deadlock.c.
 *
 * The analysis registered as `deadlock` (print<deadlock>, waveopt -analyze=deadlock) reports
 * each finding as `warning: possible SIMT deadlock: ...` [-Wsimt-deadlock], whether asked for
 * or run by the lint pass of -O1..-O3.
 */
#ifndef WAVEOPT_DEADLOCK_H
#define WAVEOPT_DEADLOCK_H

#include "waveopt/api.h"

#include <stddef.h>

#include "waveopt/diag.h"
#include "waveopt/ir.h"
#include "waveopt/uniformity.h"
#include "waveopt/waveopt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wave_deadlock wave_deadlock;

/* What the analysis concluded about one loop. */
typedef enum wave_loop_wait {
  WAVE_WAIT_NOT_JUDGED,   /* it holds a call, halt or return: lanes may leave it another way */
  WAVE_WAIT_NO_BREAK,     /* nothing leaves it but the end of its lanes */
  WAVE_WAIT_NONE,         /* some break does not depend on memory read in the loop */
  WAVE_WAIT_SELF,         /* every break waits on memory, which the loop also writes */
  WAVE_WAIT_UNPARKED,     /* every break waits on memory that no parked lane writes */
  WAVE_WAIT_DEADLOCK,     /* every break waits on memory that only parked lanes write */
} wave_loop_wait;

typedef struct wave_loop_verdict {
  const wave_node *loop;
  wave_loop_wait wait;
  /* From WAVE_WAIT_SELF on: the load or atomic, at an address the loop does not change, whose
   * result its breaks depend on (the first one in the loop). */
  const wave_instr *read;
  /* WAVE_WAIT_DEADLOCK: the store or atomic that parked lanes run only after the loop ends,
   * and the construct that parks them: the loop itself (lanes that left it early), or an
   * enclosing divergent if or loop. */
  const wave_instr *writer;
  const wave_node *parker;
} wave_loop_verdict;

/* The verdicts for `kernel`, or NULL when memory ran out. u is the kernel's uniformity (the
 * `uniformity` analysis), or NULL to compute it here when some loop waits on memory. */
WAVE_API wave_deadlock *wave_deadlock_compute(const wave_kernel *kernel, const wave_uniformity *u);
WAVE_API void wave_deadlock_destroy(wave_deadlock *d);

/* Every loop of the kernel, in text order. */
WAVE_API size_t wave_deadlock_num_loops(const wave_deadlock *d);
WAVE_API const wave_loop_verdict *wave_deadlock_loop(const wave_deadlock *d, size_t index);
/* How many loops are WAVE_WAIT_DEADLOCK. */
WAVE_API size_t wave_deadlock_num_findings(const wave_deadlock *d);

/* Reports every WAVE_WAIT_DEADLOCK loop as a warning at the loop, naming the read, the writer
 * and the parking construct by line. */
WAVE_API void wave_deadlock_diagnose(const wave_deadlock *d, const wave_kernel *kernel,
                                     wave_diags *diags);

/* The kernel with every loop annotated at the end of its line with its verdict. Returns 0, or
 * non-zero when write failed. */
WAVE_API int wave_deadlock_print(const wave_deadlock *d, const wave_kernel *kernel,
                                 wave_write_fn write, void *ctx);

/* Whether two results for the same kernel have the same verdicts. */
WAVE_API bool wave_deadlock_equal(const wave_deadlock *a, const wave_deadlock *b);

#ifdef __cplusplus
}
#endif

#endif
