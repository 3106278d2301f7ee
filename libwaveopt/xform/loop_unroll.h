/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The rewrite of the loop-unroll pass for one loop, for passes that want it on a loop of their
 * own choosing: a loop that counts a constant number of times is replaced by that many copies
 * of its body, under the rules of passes/loop_unroll.c.
 */
#ifndef WAVE_XFORM_LOOP_UNROLL_H
#define WAVE_XFORM_LOOP_UNROLL_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/code.h"
#include "support/key_index.h"
#include "waveopt/liveness.h"
#include "waveopt/pass.h"

/* What one run knows about the kernel, gathered from its layout at the first loop of the
 * counted shape (a kernel without one costs one look at each loop): how often each GPR is
 * written and, for those written once, by what (wave_loop_unroll keeps it up to date as it
 * copies bodies), and where: the write's place in the layout and the place where the list
 * holding it ends, between which lies every statement the write comes before on every path
 * (later in its list, or inside something later there); and liveness, fetched from `am` at
 * the first loop that needs it (the stale-liveness rule of passes/loop_unroll.c holds for
 * the rest of the run). */
typedef struct wave_unroll_env {
  wave_kernel *kernel;
  const wave_allocator *allocator; /* the kernel's module's, set by init: fini frees with it */
  wave_analysis_manager *am;
  const wave_liveness *liveness;
  uint32_t max_trips;            /* most copies of a body */
  uint32_t max_size;             /* most statements all the copies may hold together */
  bool counted;                  /* the fields below are filled in */
  bool has_call;                 /* a call may write any register: nothing is unrolled */
  uint32_t writes[WAVE_MAX_GPR + 1];
  const wave_instr *writer[WAVE_MAX_GPR + 1]; /* the one write, where writes is 1 */
  uint32_t writer_at[WAVE_MAX_GPR + 1];       /* its place in the layout */
  uint32_t writer_until[WAVE_MAX_GPR + 1];    /* where its list ends */
  const void **loops;            /* every loop of the kernel then, in text order */
  uint32_t *loop_at;             /* each one's place in the layout */
  size_t num_loops;
  wave_key_index loop_index;     /* finds a loop in `loops` */
} wave_unroll_env;

void wave_unroll_env_init(wave_unroll_env *env, wave_kernel *kernel, wave_analysis_manager *am,
                          uint32_t max_trips, uint32_t max_size);
void wave_unroll_env_fini(wave_unroll_env *env);

typedef enum wave_unroll_status {
  WAVE_UNROLL_DONE,      /* the loop is gone, its body copied `trips` times */
  WAVE_UNROLL_REFUSED,   /* a counted loop left as it is: `why` says why */
  WAVE_UNROLL_NOT_SHAPE, /* no `compare; break` on a counter at the top of its body */
  WAVE_UNROLL_NO_MEMORY, /* the kernel is as it was (or liveness could not be had) */
} wave_unroll_status;

typedef struct wave_unroll_result {
  uint32_t trips, start, bound, step, counter;
  char why[160];
} wave_unroll_result;

/* Unrolls `loop` fully when it is a counted loop passes/loop_unroll.c accepts. The body is left
 * as it is written, the blocks where copies meet merged; the caller normalizes the kernel. */
wave_unroll_status wave_loop_unroll(wave_unroll_env *env, wave_node *loop,
                                    wave_unroll_result *result);

#endif
