/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Uniformity: which registers and predicates hold the same value in every active lane of a
 * wave, at every program point, and which ifs, breaks, continues and loops are divergent.
 * The rules are in analysis/uniformity.c.
 *
 * Two facts are kept apart. A *uniform condition* means all active lanes agree on it; a
 * *converged point* means every lane that entered the region (the kernel or the subroutine)
 * and has not ended is active there: none is parked by a divergent if or held back by a
 * divergent break or continue. Barriers and wave operations care about the second.
 *
 * The analysis registered as `uniformity` (print<uniformity>) takes assume_divergent from its
 * analysis manager (wave_analysis_manager_assume_divergent: in a pipeline run,
 * wave_pipeline_options.assume_divergent, the tools' -assume-divergent). A caller outside the
 * pass manager computes its own result with wave_uniformity_compute.
 */
#ifndef WAVEOPT_UNIFORMITY_H
#define WAVEOPT_UNIFORMITY_H

#include "waveopt/api.h"

#include <stdbool.h>
#include <stddef.h>

#include "waveopt/ir.h"
#include "waveopt/regset.h"
#include "waveopt/waveopt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wave_uniformity wave_uniformity;

/* Zero-initialised: every register read before it is written is a kernel argument, preset to
 * the same value in every lane (docs/language.md "Registers"). */
typedef struct wave_uniformity_config {
  /* Registers the host presets differently per lane (the `assume-divergent` list):
   * divergent from the kernel's entry on. */
  wave_regset assume_divergent;
  /* Classify across the workgroup rather than the wave, as a barrier needs: sr_wave_id and the
   * per-wave results of wave_reduce_*, wave_broadcast, wave_ballot, wave_any and wave_all also
   * differ, and a converged point is one that every thread of the workgroup that has not ended
   * reaches together. */
  bool across_workgroup;
} wave_uniformity_config;

/* The result for `kernel`, or NULL when memory ran out. config may be NULL (all zero). */
WAVE_API wave_uniformity *wave_uniformity_compute(const wave_kernel *kernel,
                                                  const wave_uniformity_config *config);
WAVE_API void wave_uniformity_destroy(wave_uniformity *u);

/* Whether reg (WAVE_REG_GPR(r) or WAVE_REG_PRED(p)) may differ between the active lanes just
 * before instr; the set of all such registers. Code the analysis never reached (after an
 * unguarded halt) and instructions of other kernels answer divergent: every register. */
WAVE_API bool wave_uniformity_reg_divergent(const wave_uniformity *u, const wave_instr *instr,
                                            unsigned reg);
WAVE_API wave_regset wave_uniformity_divergent_before(const wave_uniformity *u,
                                                      const wave_instr *instr);

/* Whether what instr writes may differ between the lanes it leaves active. */
WAVE_API bool wave_uniformity_result_divergent(const wave_uniformity *u, const wave_instr *instr);
/* For break and continue: whether they may take some active lanes and not others (their
 * predicate, or their guard, may differ between the active lanes). */
WAVE_API bool wave_uniformity_branch_divergent(const wave_uniformity *u, const wave_instr *instr);
/* Whether every lane that entered the region is active at instr (and selected by its guard). */
WAVE_API bool wave_uniformity_instr_converged(const wave_uniformity *u, const wave_instr *instr);

/* An if: whether its predicate may differ between the active lanes. A loop: whether lanes may
 * leave it at different iterations (a divergent break, or a break where lanes are parked). */
WAVE_API bool wave_uniformity_node_divergent(const wave_uniformity *u, const wave_node *node);
/* Whether every lane that entered the region is active at the if or at the loop's entry. */
WAVE_API bool wave_uniformity_node_converged(const wave_uniformity *u, const wave_node *node);

/* Why instr's result (for break and continue: its predicate) or node's predicate (an if) or
 * exit (a loop) is divergent: the chain back to a source, at most a few links, as
 * "p1 = icmp_lt (line 7) <- r4 = imad (line 6) <- r1 = mov_sr (line 3) <- sr_thread_id_x".
 * Written into buf as snprintf does; returns the length of the whole text, 0 when uniform. */
WAVE_API size_t wave_uniformity_explain_instr(const wave_uniformity *u, const wave_instr *instr,
                                              char *buf, size_t size);
WAVE_API size_t wave_uniformity_explain_node(const wave_uniformity *u, const wave_node *node,
                                             char *buf, size_t size);

/* The kernel with every if, loop, break, continue and defining instruction annotated at the
 * end of its line, after the line's own comment: `; uniform` or `; divergent: <why>`.
 * Returns 0, or non-zero when write failed. */
WAVE_API int wave_uniformity_print(const wave_uniformity *u, const wave_kernel *kernel,
                                   wave_write_fn write, void *ctx);

/* Whether two results for the same kernel classify everything alike (explanations aside). */
WAVE_API bool wave_uniformity_equal(const wave_uniformity *a, const wave_uniformity *b);

#ifdef __cplusplus
}
#endif

#endif
