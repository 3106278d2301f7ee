/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The rewrite of the if-to-select pass for one if, for passes that dissolve ifs for their own
 * reasons (bound-depth: an if too deep for the divergence stack). The pass's opening comment
 * (passes/if_to_select.c) gives the forms (guarded, select, and min/max for a clamp), the cost
 * model and every refusal.
 *
 * The rewrite is all or nothing: it plans first, builds the straight-line code apart from the
 * tree, and only then puts it where the if was, so that a refusal, or memory running out,
 * leaves the kernel as it was. The liveness result may be stale in the sense of xform/xform.h
 * (earlier rewrites of this pass, or of any rewrite keeping that rule): this rewrite keeps the
 * rule too.
 */
#ifndef WAVE_XFORM_IF_TO_SELECT_H
#define WAVE_XFORM_IF_TO_SELECT_H

#include <stdbool.h>
#include <stdint.h>

#include "waveopt/edit.h"
#include "waveopt/liveness.h"
#include "waveopt/regset.h"
#include "waveopt/target.h"
#include "xform/comments.h"

typedef struct wave_if_to_select_params {
  const wave_target *target;
  const wave_liveness *liveness;
  wave_regset kernel_taken; /* wave_xform_kernel_taken of the kernel, once per pass run */
  uint32_t max_registers;   /* scratch GPRs may grow .registers up to this many */
  unsigned side_limit;      /* most instructions either side may hold */
  /* The fraction of the if's runs in which both sides run (cost model): 1 for an if that may
   * split the wave, 0 for a uniform one, between for a measured rate (wave_xform_if_split_rate). */
  double split_rate;
  bool require_profit;      /* refuse code that issues more instructions than the if */
  /* Where the comments of the removed if, else and endif lines are recorded; the caller
   * applies them once its run is over (xform/comments.h). */
  wave_comment_moves *comments;
} wave_if_to_select_params;

typedef enum wave_if_to_select_form {
  WAVE_IF_TO_SELECT_GUARDED,   /* the sides' instructions under @p guards */
  WAVE_IF_TO_SELECT_SELECT,    /* both sides computed, results picked by select */
  WAVE_IF_TO_SELECT_MINMAX,    /* a clamp: the compare before it becomes imax or imin */
} wave_if_to_select_form;

/* "guarded", "select" or "min/max", as the remarks name the forms. */
const char *wave_if_to_select_form_name(wave_if_to_select_form form);

typedef enum wave_if_to_select_status {
  WAVE_IF_TO_SELECT_DONE,
  WAVE_IF_TO_SELECT_REFUSED,     /* the outcome's reason says why; the kernel is unchanged */
  WAVE_IF_TO_SELECT_NO_MEMORY,   /* the kernel is unchanged */
} wave_if_to_select_status;

typedef struct wave_if_to_select_outcome {
  wave_if_to_select_form form;  /* DONE: the form written */
  double cost_before;           /* instructions the if issues per run, by the cost model */
  unsigned cost_after;          /* instructions of the straight-line code (DONE: written) */
  char reason[320];             /* REFUSED: why, e.g. "then-side holds idiv at 4:9 (may trap)" */
} wave_if_to_select_outcome;

/* Whether the sides of the if `node` hold only what the rewrite can take (no nested control
 * flow, nothing that may not run under a guard or in lanes that skipped it); false with
 * out->reason when not, the same reason the rewrite would give. It needs no analysis, so a
 * caller may ask it first and compute liveness only for a candidate. */
bool wave_if_to_select_candidate(wave_node *node, wave_if_to_select_outcome *out);

/* Replaces the if `node` by straight-line code when it can and (with require_profit) when that
 * costs no more; *out says what happened. */
wave_if_to_select_status wave_if_to_select_rewrite(wave_node *node,
                                                   const wave_if_to_select_params *params,
                                                   wave_if_to_select_outcome *out);

#endif
