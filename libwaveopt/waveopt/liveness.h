/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Register liveness: which GPRs and predicates may still be read at each point of a kernel,
 * asked for each lane that stands there (a lane parked elsewhere has its own point). The answer
 * is conservative ("live" may be too much, never too little), so a pass may take any register
 * it reports dead or free as scratch for the lanes active at that point. Within the pass manager
 * the result is the `liveness` analysis (wave_analysis_get with the id the registry gives that
 * name); outside it, compute one directly. Rules: analysis/liveness.c.
 */
#ifndef WAVEOPT_LIVENESS_H
#define WAVEOPT_LIVENESS_H

#include "waveopt/api.h"

#include "waveopt/edit.h"
#include "waveopt/ir.h"
#include "waveopt/regset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wave_liveness wave_liveness;

/* NULL when memory runs out. The result describes the kernel as it is now: any edit of the
 * kernel makes it stale. */
WAVE_API wave_liveness *wave_liveness_compute(const wave_kernel *kernel);
/* Strong liveness: a register is live only when an instruction that is needed may read it; an
 * instruction is needed when it cannot be removed (memory, traps, convergent and control
 * instructions) or one of its results is live after it, and an if reads its predicate only
 * when something inside it is needed (or a loop is). What it calls dead is read only by pure
 * instructions whose results are dead and by ifs holding nothing else, which dce removes in
 * one sweep. Within the pass
 * manager, the `strong-liveness` analysis. The same queries answer for it. */
WAVE_API wave_liveness *wave_strong_liveness_compute(const wave_kernel *kernel);
WAVE_API void wave_liveness_destroy(wave_liveness *liveness);

/* Live right before / right after the instruction. An instruction the result does not know
 * (detached, added later) answers every register, which keeps callers safe. */
WAVE_API wave_regset wave_liveness_in(const wave_liveness *liveness, const wave_instr *instr);
WAVE_API wave_regset wave_liveness_out(const wave_liveness *liveness, const wave_instr *instr);
/* The same answers for a caller that meets instructions in text order, or in reverse: *place
 * is where to look first among the instructions as they stood when the result was computed
 * (every region's, counted from 0), and comes back as where the instruction was found, or
 * SIZE_MAX when the result does not know it. The neighbour of the last place found is the
 * next guess; a wrong guess costs only the lookup that the calls above make. */
WAVE_API wave_regset wave_liveness_in_near(const wave_liveness *liveness, const wave_instr *instr,
                                           size_t *place);
WAVE_API wave_regset wave_liveness_out_near(const wave_liveness *liveness,
                                            const wave_instr *instr, size_t *place);
/* Live at a cursor; an unknown place answers every register. */
WAVE_API wave_regset wave_liveness_at(const wave_liveness *liveness, wave_cursor at);
/* Live both before and after the node: values that pass through it and must survive it. */
WAVE_API wave_regset wave_liveness_across(const wave_liveness *liveness, const wave_node *node);
/* The registers below the kernel's .registers, and p0..p3, that are dead at the cursor. */
WAVE_API wave_regset wave_liveness_free(const wave_liveness *liveness, wave_cursor at);

/* The registers that some instruction of the kernel, as computed, reads in lanes other than
 * its own (wave_instr_other_lane_uses): a lane that waits or has ended keeps them live. */
WAVE_API wave_regset wave_liveness_other_lanes(const wave_liveness *liveness);

/* Whether two results give the same answers. */
WAVE_API bool wave_liveness_equal(const wave_liveness *a, const wave_liveness *b);

#ifdef __cplusplus
}
#endif

#endif
